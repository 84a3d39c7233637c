/**
 * What the built CLI loads for a command: `--version` and `--help` answer from the command classes
 * alone, a command on an up-to-date database opens MikroORM without the migrator (umzug and its
 * dependencies), `list-users` and `list-orgs` open the database alone (no services), and no command loads the
 * Redis client without Redis. Counted in modules loaded, not timed: the bench times them.
 */
import { expect } from 'chai';
import { readFile, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { temporaryDatabase, temporaryDirectory } from '../helpers/app.js';
import { MIKRO_ORM_MAJOR } from '../helpers/orm.js';
import { BUILT_CLI, runCli, type CliResult } from './cli-process.js';

const TRACE = new URL('./fixtures/module-trace.mjs', import.meta.url).href;

describe('CLI: what a command loads', () => {
  let dir: string;
  let runs = 0;

  /** Runs the built CLI and returns its result with the URLs of the modules it loaded. */
  async function traced(args: string[], env: Record<string, string> = {}): Promise<CliResult & { modules: string[] }> {
    const file = join(dir, `trace-${++runs}.txt`);
    const result = await runCli(['--import', TRACE, BUILT_CLI, ...args], {
      runner: 'node',
      env: { ...env, MODULE_TRACE: file },
    });
    const modules = (await readFile(file, 'utf8')).split('\n').filter(Boolean);
    return { ...result, modules };
  }
  const loaded = (modules: string[], path: string): boolean => modules.some((url) => url.includes(path));

  before(async () => {
    dir = await temporaryDirectory();
  });
  after(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it('--version and auth --help load neither MikroORM, nor the services, nor Express', async () => {
    for (const args of [['--version'], ['auth', '--help']]) {
      const { code, stderr, modules } = await traced(args);
      expect({ code, stderr }, args.join(' ')).to.deep.equal({ code: 0, stderr: '' });
      expect(loaded(modules, '/cli/commands/list-users.js'), args.join(' ')).to.equal(true);
      // Nor the "did you mean" of an unknown command, which only a command line naming none needs.
      for (const heavy of [
        '/node_modules/@mikro-orm/',
        '/dist/src/wiring.js',
        '/node_modules/express/',
        '/node_modules/zod/',
        '/cli/commands/nearest-command.js',
        '/node_modules/fastest-levenshtein/',
      ]) {
        expect(loaded(modules, heavy), `${args.join(' ')} loaded ${heavy}`).to.equal(false);
      }
    }
  });

  it('list-users migrates a fresh database, and on an up-to-date one opens it without the migrator; list-orgs too', async () => {
    const database = await temporaryDatabase();
    try {
      const fresh = await traced(['auth', 'list-users', '--database', database.url]);
      expect(fresh).to.include({ code: 0, stdout: 'No users.\n', stderr: '' });
      expect(loaded(fresh.modules, '/node_modules/@mikro-orm/migrations/')).to.equal(true);

      const upToDate = await traced(['auth', 'list-users', '--database', database.url]);
      expect(upToDate).to.include({ code: 0, stdout: 'No users.\n', stderr: '' });
      expect(loaded(upToDate.modules, '/node_modules/@mikro-orm/core/')).to.equal(true);
      // None of the package's migrations; nor the migrator on MikroORM 6 (7's init imports
      // @mikro-orm/migrations itself whenever it is installed).
      expect(
        upToDate.modules.some((url) => /\/dist\/src\/storage\/migrations\/(frozen\/)?Migration/.test(url)),
      ).to.equal(false);
      if (MIKRO_ORM_MAJOR < 7) expect(loaded(upToDate.modules, '/node_modules/@mikro-orm/migrations/')).to.equal(false);
      expect(loaded(upToDate.modules, '/node_modules/express/')).to.equal(false);
      // The database alone: neither the services nor what they bring (validation, policies, Redis, limits).
      const orgs = await traced(['auth', 'list-orgs', '--database', database.url]);
      expect(orgs).to.include({ code: 0, stdout: 'No organizations.\n', stderr: '' });
      for (const heavy of [
        '/dist/src/wiring.js',
        '/dist/src/users/service.js',
        '/node_modules/zod/',
        '/node_modules/@casl/',
        '/node_modules/ioredis/',
        '/node_modules/rate-limiter-flexible/',
      ]) {
        expect(loaded(upToDate.modules, heavy), `list-users loaded ${heavy}`).to.equal(false);
        expect(loaded(orgs.modules, heavy), `list-orgs loaded ${heavy}`).to.equal(false);
      }
    } finally {
      await database.remove();
    }
  });

  it('a command that builds every part loads no Redis client, so connects to no Redis, even with SERVICE_AUTH_REDIS_URL set', async () => {
    const database = await temporaryDatabase();
    try {
      // An address where nothing listens: a connection attempt would be reported on stderr.
      const env = { SERVICE_AUTH_REDIS_URL: 'redis://127.0.0.1:1' };
      const { code, stderr, modules } = await traced(['auth', 'list-roles', '--database', database.url], env);
      expect({ code, stderr }).to.deep.equal({ code: 0, stderr: '' });
      expect(loaded(modules, '/dist/src/wiring.js')).to.equal(true);
      expect(loaded(modules, '/node_modules/ioredis/')).to.equal(false);
    } finally {
      await database.remove();
    }
  });
});
