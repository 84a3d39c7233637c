/**
 * The CLI as an operator feels it: the built binary (dist/cli/index.js) started as a process and
 * timed from its start to its exit, the median of RUNS runs after one that is not counted.
 * `--version` and `auth --help` (≤ 0.5 s) load the command classes alone; `auth list-users`
 * (≤ 1 s) on a small SQLite file, migrated beforehand, opens the database too; with `--app
 * app.ts` (≤ 2 s) it first imports a TypeScript application through tsx, as an operator's does,
 * and uses that application's parts. The application is APP_TS in a folder of its own whose
 * node_modules links the package (this checkout, built), express and tsx, as an installation has them.
 */
import { spawn } from 'node:child_process';
import { mkdir, symlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { atMost, type Figure } from './figures.js';
import { median } from './median.js';

const CLI = new URL('../dist/cli/index.js', import.meta.url).pathname;
const ROOT = new URL('..', import.meta.url).pathname;

/** The quick start's kind of app.ts: the package by name, roles, and a server that listens and logs when the module loads. */
const APP_TS = `import express, { type Express } from 'express';
import { ServiceAuth } from 'service-auth';

export const app: Express = express();
app.set('SERVICE_AUTH_DEFAULT_ROLES', 'member');
const auth = new ServiceAuth(app);
auth.defineRole('admin', [{ action: 'manage', subject: 'all' }]);
auth.defineRole('member', [{ action: 'read', subject: 'Report', conditions: { team: 'north' } }]);

app.listen(3000, () => console.log('Listening on http://localhost:3000'));
export default app;
`;
const RUNS = 7;
const USERS = 3;
const PASSWORD = 'Bench-Password-123!';

export async function cliFigures(dir: string): Promise<Figure[]> {
  const database = ['--database', `sqlite:${join(dir, 'cli.sqlite')}`];
  for (let i = 1; i <= USERS; i++)
    await run(
      ['auth', 'create-user', '--email', `user${i}@example.com`, '--password-stdin', ...database],
      `${PASSWORD}\n`,
    );
  const app = await application(dir);
  return [
    await figure('service-auth --version', ['--version'], 0.5),
    await figure('service-auth auth --help', ['auth', '--help'], 0.5),
    await figure(`service-auth auth list-users (SQLite, ${USERS} users)`, ['auth', 'list-users', ...database], 1),
    await figure(
      'service-auth auth list-users --app app.ts (TypeScript through tsx)',
      ['auth', 'list-users', '--app', app, ...database],
      2,
    ),
  ];
}

/** The application's folder, made in `dir`: its app.ts, and node_modules linking what it imports. */
async function application(dir: string): Promise<string> {
  const app = join(dir, 'app');
  await mkdir(join(app, 'node_modules'), { recursive: true });
  await writeFile(join(app, 'package.json'), JSON.stringify({ name: 'bench-app', private: true, type: 'module' }));
  await writeFile(join(app, 'app.ts'), APP_TS);
  await symlink(ROOT, join(app, 'node_modules', 'service-auth'), 'dir');
  for (const name of ['express', 'tsx'])
    await symlink(join(ROOT, 'node_modules', name), join(app, 'node_modules', name), 'dir');
  return join(app, 'app.ts');
}

async function figure(name: string, args: string[], target: number): Promise<Figure> {
  await run(args);
  const seconds: number[] = [];
  for (let i = 0; i < RUNS; i++) seconds.push(await run(args));
  const spread = `${Math.min(...seconds).toFixed(2)}–${Math.max(...seconds).toFixed(2)} s`;
  return atMost(
    name,
    median(seconds),
    target,
    's',
    `median of ${RUNS} runs of the built CLI, process start to exit (${spread})`,
  );
}

/** Runs the CLI to its exit; its seconds. A failed run fails the bench: its time would mean nothing. */
function run(args: string[], input = ''): Promise<number> {
  const started = performance.now();
  const child = spawn(process.execPath, [CLI, ...args], { stdio: ['pipe', 'ignore', 'pipe'] });
  let stderr = '';
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
  child.stdin.end(input);
  return new Promise((resolve, reject) => {
    child.once('error', reject);
    child.once('close', (code) => {
      if (code === 0) resolve((performance.now() - started) / 1000);
      else reject(new Error(`service-auth ${args.join(' ')} exited with ${code}: ${stderr.trim()}`));
    });
  });
}
