/**
 * `npm test`: every test file in mocha's two workers (.mocharc.json), the slowest files first.
 *
 * Mocha hands the files to its workers in the order it is given them, the next file to whichever
 * worker is free. In name order a long file that comes late (test/properties, test/package)
 * leaves the other core idle while it runs; started first, the long files run side by side and
 * the short ones fill in behind them (longest first, the classic rule for two machines).
 *
 * SLOWEST_FIRST comes from the per-file table in docs/development.md; a file named here that no
 * longer exists is an error, so the list cannot rot unnoticed. Arguments after `--` go to mocha:
 * `npm test -- --grep tokens`.
 */
import { spawn } from 'node:child_process';
import { existsSync, readdirSync } from 'node:fs';
import { createRequire } from 'node:module';

const SLOWEST_FIRST = [
  'test/package/pack.test.ts',
  'test/browser/account-lifecycle.test.ts',
  'test/properties/accessible-by.test.ts',
  'test/cli/app-option.test.ts',
  'test/services/instances.test.ts',
  'test/browser/admin.test.ts',
  'test/browser/account.test.ts',
  'test/demo/projects-property.test.ts',
  'test/audit/chain.test.ts',
  'test/cli/check.test.ts',
  'test/types/typed-abilities.test.ts',
  'test/browser/tokens.test.ts',
  'test/services/redis-outage.test.ts',
  'test/properties/http-fuzz.test.ts',
  'test/browser/orgs.test.ts',
  'test/docs/readme.test.ts',
];

const missing = SLOWEST_FIRST.filter((file) => !existsSync(file));
if (missing.length > 0) {
  console.error(`scripts/test.mjs names test files that do not exist: ${missing.join(', ')}`);
  process.exit(2);
}

const everyFile = readdirSync('test', { recursive: true })
  .map((name) => `test/${name}`)
  .filter((file) => file.endsWith('.test.ts'))
  .sort();
const files = [...SLOWEST_FIRST, ...everyFile.filter((file) => !SLOWEST_FIRST.includes(file))];

const mocha = createRequire(import.meta.url).resolve('mocha/bin/mocha.js');
const child = spawn(process.execPath, [mocha, ...files, ...process.argv.slice(2)], { stdio: 'inherit' });
for (const signal of ['SIGINT', 'SIGTERM']) process.on(signal, () => child.kill(signal));
child.on('exit', (code, signal) => process.exit(code ?? (signal ? 1 : 0)));
