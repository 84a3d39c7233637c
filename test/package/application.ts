/**
 * A TypeScript application made from the packed tarball alone, as a new user makes one: the
 * tarball, express and MikroORM with the SQLite driver as its dependencies, tsx and typescript to
 * develop with, from the npm cache; one installation for each end of the MikroORM peer range, all
 * made at once the first time one is asked for. Its files: the module `--app` loads, a policy test
 * file, its own MikroORM entity and configuration, and what `schema:update` does.
 */
import { expect } from 'chai';
import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { cp, mkdir, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { codeBlocks } from '../docs/code-blocks.js';
import { ROOT } from '../helpers/processes.js';
import { APPLICATION_COMPILER_OPTIONS } from '../helpers/tsconfig.js';

export const NPM = process.platform === 'win32' ? 'npm.cmd' : 'npm';

export const manifest = JSON.parse(await readFile(join(ROOT, 'package.json'), 'utf8')) as {
  main: string;
  types: string;
  bin: Record<string, string>;
  exports: Record<string, string | Record<string, string>>;
  peerDependencies: Record<string, string>;
  peerDependenciesMeta?: Record<string, { optional?: boolean }>;
  dependencies?: Record<string, string>;
  devDependencies: Record<string, string>;
  repository?: unknown;
  homepage?: string;
};

export const CLI = 'node_modules/service-auth/dist/cli/index.js';

/**
 * The MikroORM 6 range's ends, each @mikro-orm package pinned to one version as an application's are
 * (MikroORM refuses packages of different versions). The lowest is the bottom of the peer range (`^6.6.4`:
 * 6.6.3 is the first whose `schema:update` honours `schemaGenerator.skipTables`, and 6.6.4 the
 * first with every package on the registry); the newest is the one this repository develops on,
 * the newest 6.x whose packages are all published (`@mikro-orm/sqlite` 6.6.17 is, without the
 * `@mikro-orm/knex` 6.6.17 it needs).
 */
export const LOWEST_MIKRO_ORM =
  /^\^(\d+\.\d+\.\d+)(?= \|\||$)/.exec(manifest.peerDependencies['@mikro-orm/core'] ?? '')?.[1] ?? 'no ^x.y.z range';
export const NEWEST_MIKRO_ORM = manifest.devDependencies['@mikro-orm/core']!;

export interface MikroOrmVersion {
  name: 'newest' | 'lowest';
  version: string;
}

export const MIKRO_ORM_VERSIONS: MikroOrmVersion[] = [
  { name: 'newest', version: NEWEST_MIKRO_ORM },
  { name: 'lowest', version: LOWEST_MIKRO_ORM },
];

/** The application's own @mikro-orm packages: what the package needs, with the SQLite driver only. */
export const APPLICATION_MIKRO_ORM = ['core', 'knex', 'migrations', 'sqlite'].map((name) => `@mikro-orm/${name}`);

/** The application's development dependencies as the README's lines name them, at this checkout's versions (in the npm cache). */
const APPLICATION_DEV_DEPENDENCIES = ['tsx', 'typescript', '@types/express'];

/** The native modules the package installs, and the binding each compiles on install. */
const NATIVE = [
  ['sqlite3', 'build/Release/node_sqlite3.node'],
  ['argon2', 'build/Release/argon2.node'],
] as const;

/**
 * Puts this checkout's compiled bindings into the application's copies of the same versions, in
 * place of the install scripts: sqlite3's compiles SQLite from source for a minute, and argon2's
 * prebuilt binary crashes on this machine's Node (which is why npm compiles it here); neither
 * would test anything of ours.
 */
async function useBuiltBindings(dir: string): Promise<void> {
  const version = async (root: string, name: string) =>
    (JSON.parse(await readFile(join(root, 'node_modules', name, 'package.json'), 'utf8')) as { version: string })
      .version;
  for (const [name, binding] of NATIVE) {
    expect(await version(dir, name), `the ${name} the package installs is the one this checkout built`).to.equal(
      await version(ROOT, name),
    );
    await cp(join(ROOT, 'node_modules', name, binding), join(dir, 'node_modules', name, binding));
  }
}

const scratch: string[] = [];
let packing: Promise<string> | undefined;
const installs = new Map<string, Promise<string>>();

/** `npm pack` of this checkout (built), once: the tarball's path. */
function tarball(): Promise<string> {
  return (packing ??= (async () => {
    const dir = await mkdtemp(join(tmpdir(), 'service-auth-tarball-'));
    scratch.push(dir);
    const { stdout } = await promisify(execFile)(NPM, ['pack', '--ignore-scripts', '--pack-destination', dir], {
      cwd: ROOT,
      encoding: 'utf8',
    });
    return join(dir, stdout.trim().split('\n').pop()!);
  })());
}

/** The application installed on `version`: every version's installation starts at the first call, all at once. */
export function installedApplication(version: MikroOrmVersion): Promise<string> {
  if (installs.size === 0) {
    for (const each of MIKRO_ORM_VERSIONS) {
      const installing = install(each);
      installing.catch(() => undefined); // awaited by its own tests, which report the failure
      installs.set(each.name, installing);
    }
  }
  return installs.get(version.name)!;
}

async function install(version: MikroOrmVersion): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), `service-auth-app-${version.name}-`));
  scratch.push(dir);
  await writeFile(
    join(dir, 'package.json'),
    JSON.stringify({
      name: 'typescript-app',
      private: true,
      type: 'module',
      dependencies: {
        'service-auth': `file:${await tarball()}`,
        express: manifest.peerDependencies['express'],
        // The application's own structured logger, handed to the package as auth.logger.
        pino: manifest.devDependencies['pino'],
        // The README's MikroORM 6 line names argon2: Node 20 has no crypto.argon2.
        argon2: manifest.devDependencies['argon2'],
        ...Object.fromEntries(APPLICATION_MIKRO_ORM.map((name) => [name, version.version])),
      },
      devDependencies: Object.fromEntries(
        APPLICATION_DEV_DEPENDENCIES.map((name) => [name, manifest.devDependencies[name]]),
      ),
    }),
  );
  // From the registry as a user would, the cache first (CI's `npm ci` has just filled it with the
  // newest; the lowest's packages are fetched on the first run), but without the install
  // scripts, whose work this checkout has already done (useBuiltBindings).
  await promisify(execFile)(
    NPM,
    ['install', '--prefer-offline', '--no-audit', '--no-fund', '--ignore-scripts', '--loglevel=error'],
    { cwd: dir, maxBuffer: 16 << 20 },
  );
  await useBuiltBindings(dir);
  return dir;
}

/** Removes every installation and the tarball, once the installations are done. */
export async function removeApplications(): Promise<void> {
  await Promise.allSettled(installs.values());
  for (const dir of scratch) await rm(dir, { recursive: true, force: true });
}

/**
 * The application's files besides the quick start: its module for `--app`, a policy test file, its own MikroORM.
 * The module listens on `port` (the quick start's, already held) and logs when it loads, as a server's main module does.
 */
export async function writeApplicationFiles(dir: string, port: number): Promise<void> {
  // Members read team north's reports; TypeScript that only a TypeScript loader runs.
  await writeFile(
    join(dir, 'app.ts'),
    `import express, { type Express } from 'express';
import { ServiceAuth } from 'service-auth';

interface Team { name: string }
const north: Team = { name: 'north' };

export const app: Express = express();
const auth = new ServiceAuth(app);
auth.defineRole('admin', [{ action: 'manage', subject: 'all' }]);
auth.defineRole('member', [{ action: 'read', subject: 'Report', conditions: { team: north.name } }]);
console.log('app.ts loaded');
app.listen(${port}, () => console.log('Listening on http://localhost:${port}'));
export default app;
`,
  );
  await mkdir(join(dir, 'policies/tests'), { recursive: true });
  await writeFile(
    join(dir, 'policies/tests/app.json'),
    JSON.stringify({
      principals: { ann: { roles: ['member'] }, root: { roles: ['admin'] } },
      tests: [
        {
          description: "members read team north's reports",
          principal: 'ann',
          action: 'read',
          subject: 'Report',
          fields: { team: 'north' },
          allowed: true,
        },
        {
          description: "but not team south's",
          principal: 'ann',
          action: 'read',
          subject: 'Report',
          fields: { team: 'south' },
          allowed: false,
        },
        {
          description: 'admins delete any report',
          principal: 'root',
          action: 'delete',
          subject: 'Report',
          fields: { team: 'south' },
          allowed: true,
        },
      ],
    }),
  );
  // Its own entity in the package's SQLite file, opened as the package opens it, and MikroORM's
  // schema:update told to leave the package's tables alone.
  await writeFile(
    join(dir, 'mikro-orm.config.ts'),
    `import { defineEntity } from '@mikro-orm/core';
import { defineConfig } from '@mikro-orm/sqlite';
import { SERVICE_AUTH_TABLES, sqliteOptions } from 'service-auth';

export const Note = defineEntity({
  name: 'Note',
  tableName: 'app_notes',
  properties: (p) => ({ id: p.integer().primary(), text: p.string() }),
});

export default defineConfig({
  ...sqliteOptions('service-auth.sqlite'),
  entities: [Note],
  schemaGenerator: { skipTables: [...SERVICE_AUTH_TABLES] },
});
`,
  );
  // What \`mikro-orm schema:update --run\` does, without installing MikroORM's CLI; then the tables.
  await writeFile(
    join(dir, 'schema-update.ts'),
    `import { MikroORM } from '@mikro-orm/sqlite';
import config from './mikro-orm.config.js';

const orm = await MikroORM.init(config);
await orm.schema.updateSchema();
const connection = orm.em.getConnection();
const tables = await connection.execute<{ name: string }[]>("select name from sqlite_master where type = 'table' and name not like 'sqlite%' order by name");
const [users] = await connection.execute<{ n: number }[]>('select count(*) as n from service_auth_users');
const [events] = await connection.execute<{ n: number }[]>('select count(*) as n from auth_events');
console.log(JSON.stringify({ tables: tables.map((row) => row.name), users: users!.n, events: events!.n }));
await orm.close();
`,
  );
}

/** Every copy of a @mikro-orm package under `modules`, nested ones included: name to versions. */
export async function mikroOrmCopies(modules: string): Promise<Record<string, string[]>> {
  const copies: Record<string, string[]> = {};
  const walk = async (folder: string): Promise<void> => {
    for (const entry of await readdir(folder, { withFileTypes: true }).catch(() => [])) {
      if (!entry.isDirectory()) continue;
      const path = join(folder, entry.name);
      if (entry.name === '@mikro-orm') {
        for (const name of await readdir(path)) {
          const { version } = JSON.parse(await readFile(join(path, name, 'package.json'), 'utf8')) as {
            version: string;
          };
          (copies[`@mikro-orm/${name}`] ??= []).push(version);
          await walk(join(path, name, 'node_modules'));
        }
      } else if (entry.name.startsWith('@')) {
        for (const name of await readdir(path)) await walk(join(path, name, 'node_modules'));
      } else if (entry.name !== '.bin') {
        await walk(join(path, 'node_modules'));
      }
    }
  };
  await walk(modules);
  return copies;
}

/** The README's quick start, running: its server process and what it has printed so far. */
export interface QuickStart {
  server: ChildProcess;
  output(): string;
}

/**
 * Saves the README's quick start as it is in `dir` as quick-start.ts, on `port`, and runs
 * `node <nodeArgs> quick-start.ts` there until it prints "Listening on" (an error if it exits or takes a minute).
 */
export async function startQuickStart(dir: string, port: number, nodeArgs: string[] = []): Promise<QuickStart> {
  const quickStart = codeBlocks(await readFile(join(ROOT, 'README.md'), 'utf8')).find(
    (block) => /^ts\b/.test(block.info) && block.code.includes('new ServiceAuth(app)'),
  )!;
  await writeFile(join(dir, 'quick-start.ts'), quickStart.code.replaceAll('3000', String(port)));
  const server = spawn(process.execPath, [...nodeArgs, 'quick-start.ts'], {
    cwd: dir,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  server.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
  server.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
  for (const deadline = Date.now() + 60_000; !output.includes('Listening on');) {
    if (Date.now() > deadline || server.exitCode !== null) {
      server.kill();
      throw new Error(`the quick start did not start:\n${output}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  return { server, output: () => output };
}

/** Runs `node <args>` in `cwd` to completion. */
export function run(
  cwd: string,
  args: string[],
  input = '',
): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const child = spawn(process.execPath, args, { cwd, stdio: ['pipe', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
  child.stdin.end(input);
  return new Promise((resolve, reject) => {
    child.once('error', reject);
    child.once('close', (code) => resolve({ code, stdout, stderr }));
  });
}

/**
 * Type-checks `dir`'s quick-start.ts against the declarations installed there, every declaration
 * file checked (skipLibCheck off); answers what tsc printed ('' when it passes).
 */
export async function typeCheckQuickStart(dir: string): Promise<string> {
  await writeFile(
    join(dir, 'tsconfig.json'),
    JSON.stringify({
      compilerOptions: { ...APPLICATION_COMPILER_OPTIONS, skipLibCheck: false },
      files: ['quick-start.ts'],
    }),
  );
  return promisify(execFile)(process.execPath, ['node_modules/typescript/bin/tsc', '-p', '.'], { cwd: dir }).then(
    ({ stdout, stderr }) => stdout + stderr,
    (failed: { stdout: string; stderr: string }) => failed.stdout + failed.stderr,
  );
}
