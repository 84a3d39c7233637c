/**
 * The package as npm publishes it: what `npm pack` puts in the tarball (the build, the README, the
 * LICENSE and the documents the README links to; no tests, no TypeScript sources), and a
 * TypeScript application made from that tarball alone, as a new user would (the tarball, express,
 * the SQLite driver; tsx and typescript to develop with): the README's quick start under tsx, the
 * CLI that creates a first admin, `auth test-policies --app app.ts`, and the application's own
 * MikroORM updating its schema in the same SQLite file. Once on the newest MikroORM of the peer
 * range and once on the lowest, one installation each, both made at once.
 */
import { expect } from 'chai';
import { execFile, execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { cp, mkdir, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { promisify } from 'node:util';
import { codeBlocks } from '../docs/code-blocks.js';
import { freePort } from '../helpers/ports.js';
import { ROOT } from '../helpers/processes.js';

const NPM = process.platform === 'win32' ? 'npm.cmd' : 'npm';
const PASSWORD = 'Correct-Horse-Battery-9';

interface PackedFile {
  path: string;
}

const manifest = JSON.parse(await readFile(join(ROOT, 'package.json'), 'utf8')) as {
  main: string;
  types: string;
  bin: Record<string, string>;
  exports: Record<string, string | Record<string, string>>;
  peerDependencies: Record<string, string>;
  peerDependenciesMeta?: Record<string, { optional?: boolean }>;
  dependencies?: Record<string, string>;
  devDependencies: Record<string, string>;
};

const CLI = 'node_modules/service-auth/dist/cli/index.js';

/**
 * The range's ends, each @mikro-orm package pinned to one version as an application's are (MikroORM
 * refuses packages of different versions). The lowest is the bottom of the peer range (`^6.6.4`:
 * 6.6.3 is the first whose `schema:update` honours `schemaGenerator.skipTables`, and 6.6.4 the
 * first with every package on the registry); the newest is the one this repository develops on,
 * the newest 6.x whose packages are all published (`@mikro-orm/sqlite` 6.6.17 is, without the
 * `@mikro-orm/knex` 6.6.17 it needs).
 */
const LOWEST_MIKRO_ORM = /^\^(\d+\.\d+\.\d+)$/.exec(manifest.peerDependencies['@mikro-orm/core'] ?? '')?.[1] ?? 'no ^x.y.z range';
const NEWEST_MIKRO_ORM = manifest.devDependencies['@mikro-orm/core']!;

interface MikroOrmVersion {
  name: 'newest' | 'lowest';
  version: string;
}

const MIKRO_ORM_VERSIONS: MikroOrmVersion[] = [
  { name: 'newest', version: NEWEST_MIKRO_ORM },
  { name: 'lowest', version: LOWEST_MIKRO_ORM },
];

/** The application's own @mikro-orm packages: what the package needs, with the SQLite driver only. */
const APPLICATION_MIKRO_ORM = ['core', 'knex', 'migrations', 'sqlite'].map((name) => `@mikro-orm/${name}`);

/** The application's development dependencies, at this checkout's versions (in the npm cache). */
const APPLICATION_DEV_DEPENDENCIES = ['tsx', 'typescript'];

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
  const version = async (root: string, name: string) => (JSON.parse(await readFile(join(root, 'node_modules', name, 'package.json'), 'utf8')) as { version: string }).version;
  for (const [name, binding] of NATIVE) {
    expect(await version(dir, name), `the ${name} the package installs is the one this checkout built`).to.equal(await version(ROOT, name));
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
    const { stdout } = await promisify(execFile)(NPM, ['pack', '--ignore-scripts', '--pack-destination', dir], { cwd: ROOT, encoding: 'utf8' });
    return join(dir, stdout.trim().split('\n').pop()!);
  })());
}

/** The application installed on `version`: every version's installation starts at the first call, all at once. */
function installedApplication(version: MikroOrmVersion): Promise<string> {
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
        ...Object.fromEntries(APPLICATION_MIKRO_ORM.map((name) => [name, version.version])),
      },
      devDependencies: Object.fromEntries(APPLICATION_DEV_DEPENDENCIES.map((name) => [name, manifest.devDependencies[name]])),
    }),
  );
  // From the registry as a user would, the cache first (CI has just filled it), but without the
  // install scripts, whose work this checkout has already done (useBuiltBindings).
  await promisify(execFile)(NPM, ['install', '--prefer-offline', '--no-audit', '--no-fund', '--ignore-scripts', '--loglevel=error'], { cwd: dir, maxBuffer: 16 << 20 });
  await useBuiltBindings(dir);
  return dir;
}

describe('the published package', function () {
  this.timeout(600_000);
  let files: string[];

  after(async () => {
    await Promise.allSettled(installs.values());
    for (const dir of scratch) await rm(dir, { recursive: true, force: true });
  });

  before(() => {
    const output = execFileSync(NPM, ['pack', '--dry-run', '--json', '--ignore-scripts'], { cwd: ROOT, encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] });
    files = (JSON.parse(output) as { files: PackedFile[] }[])[0]!.files.map((file) => file.path);
  });

  it('holds the build, the README, the LICENSE and the docs, and no tests, benchmarks, demo or TypeScript sources', () => {
    for (const needed of ['package.json', 'README.md', 'LICENSE', 'dist/src/index.js', 'dist/src/index.d.ts', 'dist/cli/index.js']) expect(files).to.include(needed);
    expect(files.filter((file) => file.startsWith('docs/') && file.endsWith('.md'))).to.have.length.above(5);
    const unwanted = files.filter((file) => /^(test|bench|demo|scripts|policies|\.ci)\//.test(file) || /(^|\/)[^/]+\.test\./.test(file) || (/\.ts$/.test(file) && !file.endsWith('.d.ts')));
    expect(unwanted).to.deep.equal([]);
  });

  it('holds every target of main, types, bin and exports', () => {
    const targets = [manifest.main, manifest.types, ...Object.values(manifest.bin)];
    for (const target of Object.values(manifest.exports)) targets.push(...(typeof target === 'string' ? [target] : Object.values(target)));
    const missing = targets.map((target) => target.replace(/^\.\//, '')).filter((target) => !files.includes(target));
    expect(missing).to.deep.equal([]);
  });

  it('holds everything the README links to', async () => {
    const readme = await readFile(join(ROOT, 'README.md'), 'utf8');
    const targets = [...readme.matchAll(/\]\(([^)#\s]+)\)|<img src="([^"]+)"/g)].map((match) => match[1] ?? match[2]!).filter((target) => !/^[a-z]+:/.test(target));
    expect(targets.length).to.be.above(3);
    expect(targets.filter((target) => !files.some((file) => file === target || file.startsWith(target.replace(/\/?$/, '/'))))).to.deep.equal([]);
  });

  it('leaves express, @casl/ability and MikroORM to the application: they are peer dependencies, the database drivers optional ones', () => {
    const peers = ['express', '@casl/ability', '@mikro-orm/core', '@mikro-orm/knex', '@mikro-orm/migrations', '@mikro-orm/sqlite', '@mikro-orm/postgresql'];
    expect(Object.keys(manifest.peerDependencies)).to.include.members(peers);
    expect(Object.keys(manifest.dependencies ?? {}).filter((name) => peers.includes(name) || name.startsWith('@mikro-orm/'))).to.deep.equal([]);
    const optional = Object.entries(manifest.peerDependenciesMeta ?? {}).filter(([, meta]) => meta.optional).map(([name]) => name);
    expect(optional.sort()).to.deep.equal(['@mikro-orm/postgresql', '@mikro-orm/sqlite']);
    // One range for every @mikro-orm package, and the repository's own versions within it.
    expect(new Set(Object.entries(manifest.peerDependencies).filter(([name]) => name.startsWith('@mikro-orm/')).map(([, range]) => range)).size).to.equal(1);
    expect(manifest.devDependencies['@mikro-orm/core']).to.match(/^6\./);
  });

  for (const mikroOrm of MIKRO_ORM_VERSIONS) {
    describe(`a TypeScript application made from the tarball alone, as the README has it, on the ${mikroOrm.name} MikroORM of the range (${mikroOrm.version})`, () => {
      let dir: string;
      let server: ChildProcess | undefined;
      let url: string;
      let output = '';

      before(async () => {
        dir = await installedApplication(mikroOrm);
        await writeApplicationFiles(dir);
        const port = await freePort();
        url = `http://localhost:${port}`;
        const quickStart = codeBlocks(await readFile(join(ROOT, 'README.md'), 'utf8')).find((block) => /^ts\b/.test(block.info) && block.code.includes('new ServiceAuth(app)'))!;
        // The README's TypeScript as it is, on a free port, run with the application's tsx.
        await writeFile(join(dir, 'quick-start.ts'), quickStart.code.replaceAll('3000', String(port)));
        server = spawn(process.execPath, ['--import', 'tsx', 'quick-start.ts'], { cwd: dir, stdio: ['ignore', 'pipe', 'pipe'] });
        server.stdout!.on('data', (chunk: Buffer) => (output += chunk.toString()));
        server.stderr!.on('data', (chunk: Buffer) => (output += chunk.toString()));
        for (const deadline = Date.now() + 60_000; !output.includes('Listening on'); ) {
          if (Date.now() > deadline || server.exitCode !== null) throw new Error(`the quick start did not start:\n${output}`);
          await new Promise((resolve) => setTimeout(resolve, 100));
        }
      });
      after(() => {
        server?.kill();
      });

      const json = (path: string, init: RequestInit = {}) => fetch(`${url}${path}`, { ...init, headers: { 'Content-Type': 'application/json', ...init.headers } });
      const cli = (args: string[], input = '') => run(dir, [CLI, 'auth', ...args], input);

      it('installs one copy of each @mikro-orm package, the version the application asked for, and no PostgreSQL driver', async () => {
        const copies = await mikroOrmCopies(join(dir, 'node_modules'));
        expect(copies).to.deep.equal(Object.fromEntries(APPLICATION_MIKRO_ORM.map((name) => [name, [mikroOrm.version]])));
      });

      it('creates a first admin with the installed CLI, who logs in and reaches /admin', async () => {
        const created = await cli(['create-user', '--email', 'admin@example.com', '--role', 'admin', '--admin', '--password-stdin'], `${PASSWORD}\n`);
        expect(created.code, created.stderr).to.equal(0);
        const login = await json('/service-auth/login', { method: 'POST', body: JSON.stringify({ email: 'admin@example.com', password: PASSWORD }) });
        expect(login.status).to.equal(200);
        const cookie = login.headers.get('set-cookie')!.split(';')[0]!;
        expect(await (await fetch(`${url}/admin`, { headers: { Cookie: cookie } })).json()).to.deep.equal({ hello: 'admin@example.com' });
        expect((await fetch(`${url}/admin`)).status).to.equal(401);
      });

      it('gives a member who registers their team and their note, and nothing else', async () => {
        const register = await json('/service-auth/register', { method: 'POST', body: JSON.stringify({ email: 'ada@example.com', password: PASSWORD }) });
        expect(register.status).to.equal(201);
        const { user } = (await register.json()) as { user: { id: number; roles: string[] } };
        expect(user.roles).to.deep.equal(['member']);
        const cookie = register.headers.get('set-cookie')!.split(';')[0]!;
        const get = (path: string) => fetch(`${url}${path}`, { headers: { Cookie: cookie } });
        expect((await get('/reports/north')).status).to.equal(200);
        expect((await get('/reports/south')).status).to.equal(403);
        expect((await get('/admin')).status).to.equal(403);
        // The quick start's one note belongs to user 1, the admin.
        expect((await get('/notes/1')).status).to.equal(user.id === 1 ? 200 : 403);
        expect((await get('/notes/2')).status).to.equal(404);
      });

      it("runs the TypeScript application's policy tests: auth test-policies --app app.ts", async () => {
        expect(await cli(['test-policies', 'policies/tests/app.json', '--app', 'app.ts'])).to.deep.equal({ code: 0, stdout: '3 passed, 0 failed\n', stderr: '' });
      });

      it("keeps the package's tables and rows, the audit log's included, through the application's own MikroORM schema:update with skipTables: SERVICE_AUTH_TABLES", async () => {
        const update = await run(dir, ['--import', 'tsx', 'schema-update.ts']);
        expect(update.stderr).to.equal('');
        const { tables, users, events } = JSON.parse(update.stdout) as { tables: string[]; users: number; events: number };
        const { SERVICE_AUTH_TABLES } = (await import(pathToFileURL(join(dir, 'node_modules/service-auth/dist/src/index.js')).href)) as { SERVICE_AUTH_TABLES: string[] };
        expect(tables).to.deep.equal([...SERVICE_AUTH_TABLES, 'app_notes'].sort());
        // The admin and the member, and what the audit log recorded of them.
        expect(users).to.equal(2);
        expect(events).to.be.at.least(3);
        const login = await json('/service-auth/login', { method: 'POST', body: JSON.stringify({ email: 'admin@example.com', password: PASSWORD }) });
        expect(login.status).to.equal(200);
      });

      // Once is enough: the message names the installed version, which only the lowest shows is not the repository's.
      if (mikroOrm.name === 'lowest') it('names the driver to install, at the version of the installed MikroORM, for a database whose driver the application lacks', async () => {
        const version = JSON.parse(await readFile(join(dir, 'node_modules/@mikro-orm/core/package.json'), 'utf8')) as { version: string };
        expect(await cli(['list-users', '--database', 'postgresql://auth@127.0.0.1:1/app'])).to.deep.equal({
          code: 1,
          stdout: '',
          stderr: `Database unavailable: cannot open the database postgresql://auth@127.0.0.1:1/app: the PostgreSQL driver is not installed: npm install @mikro-orm/postgresql@${version.version}\n`,
        });
      });

      // PINO CHECK (issue 26, item 6: the logger's error objects): the application's own pino as
      // auth.logger is checked here, on this same installation (add pino to install()'s
      // dependencies), once that change has landed.
    });
  }
});

/** The application's files besides the quick start: its module for `--app`, a policy test file, its own MikroORM. */
async function writeApplicationFiles(dir: string): Promise<void> {
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
export default app;
`,
  );
  await mkdir(join(dir, 'policies/tests'), { recursive: true });
  await writeFile(
    join(dir, 'policies/tests/app.json'),
    JSON.stringify({
      principals: { ann: { roles: ['member'] }, root: { roles: ['admin'] } },
      tests: [
        { description: "members read team north's reports", principal: 'ann', action: 'read', subject: 'Report', fields: { team: 'north' }, allowed: true },
        { description: "but not team south's", principal: 'ann', action: 'read', subject: 'Report', fields: { team: 'south' }, allowed: false },
        { description: 'admins delete any report', principal: 'root', action: 'delete', subject: 'Report', fields: { team: 'south' }, allowed: true },
      ],
    }),
  );
  // Its own entity in the package's SQLite file, and MikroORM's schema:update told to leave the package's tables alone.
  await writeFile(
    join(dir, 'mikro-orm.config.ts'),
    `import { defineEntity } from '@mikro-orm/core';
import { defineConfig } from '@mikro-orm/sqlite';
import { SERVICE_AUTH_TABLES } from 'service-auth';

export const Note = defineEntity({
  name: 'Note',
  tableName: 'app_notes',
  properties: (p) => ({ id: p.integer().primary(), text: p.string() }),
});

export default defineConfig({
  dbName: 'service-auth.sqlite',
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
async function mikroOrmCopies(modules: string): Promise<Record<string, string[]>> {
  const copies: Record<string, string[]> = {};
  const walk = async (folder: string): Promise<void> => {
    for (const entry of await readdir(folder, { withFileTypes: true }).catch(() => [])) {
      if (!entry.isDirectory()) continue;
      const path = join(folder, entry.name);
      if (entry.name === '@mikro-orm') {
        for (const name of await readdir(path)) {
          const { version } = JSON.parse(await readFile(join(path, name, 'package.json'), 'utf8')) as { version: string };
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

/** Runs `node <args>` in `cwd` to completion. */
function run(cwd: string, args: string[], input = ''): Promise<{ code: number | null; stdout: string; stderr: string }> {
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
