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
import { execFileSync, type ChildProcess } from 'node:child_process';
import { readFile, writeFile } from 'node:fs/promises';
import { existsSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, posix } from 'node:path';
import { pathToFileURL } from 'node:url';
import { describeOnMikroOrm6 } from '../helpers/orm.js';
import { freePort } from '../helpers/ports.js';
import { ROOT } from '../helpers/processes.js';
import {
  APPLICATION_MIKRO_ORM,
  CLI,
  installedApplication,
  manifest,
  mikroOrmCopies,
  MIKRO_ORM_VERSIONS,
  NPM,
  removeApplications,
  run,
  startQuickStart,
  typeCheckQuickStart,
  writeApplicationFiles,
} from './application.js';

const REPOSITORY = 'https://github.com/service-auth/service-auth';

/** The targets of a Markdown document's links and images that are not URLs, without their #fragment. */
function relativeLinks(markdown: string): string[] {
  return [...markdown.matchAll(/\]\(([^)#\s]*)[^)]*\)|<img src="([^"#]+)"/g)]
    .map((match) => match[1] ?? match[2]!)
    .filter((target) => target !== '' && !/^[a-z]+:/.test(target));
}
const PASSWORD = 'Correct-Horse-Battery-9';

interface PackedFile {
  path: string;
}

describe('the published package', function () {
  this.timeout(600_000);
  let files: string[];

  after(removeApplications);

  before(() => {
    const output = execFileSync(NPM, ['pack', '--dry-run', '--json', '--ignore-scripts'], {
      cwd: ROOT,
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'ignore'],
    });
    files = (JSON.parse(output) as { files: PackedFile[] }[])[0]!.files.map((file) => file.path);
  });

  it('holds the build, the README, the LICENSE and the docs, and no tests, benchmarks, demo or TypeScript sources', () => {
    for (const needed of [
      'package.json',
      'README.md',
      'LICENSE',
      'dist/src/index.js',
      'dist/src/index.d.ts',
      'dist/cli/index.js',
    ])
      expect(files).to.include(needed);
    expect(files.filter((file) => file.startsWith('docs/') && file.endsWith('.md'))).to.have.length.above(5);
    const unwanted = files.filter(
      (file) =>
        /^(test|bench|demo|scripts|policies|\.ci)\//.test(file) ||
        /(^|\/)[^/]+\.test\./.test(file) ||
        (/\.ts$/.test(file) && !file.endsWith('.d.ts')),
    );
    expect(unwanted).to.deep.equal([]);
  });

  it('holds every target of main, types, bin and exports', () => {
    const targets = [manifest.main, manifest.types, ...Object.values(manifest.bin)];
    for (const target of Object.values(manifest.exports))
      targets.push(...(typeof target === 'string' ? [target] : Object.values(target)));
    const missing = targets.map((target) => target.replace(/^\.\//, '')).filter((target) => !files.includes(target));
    expect(missing).to.deep.equal([]);
  });

  it('publishes declarations that name no @mikro-orm package but core, from every entry point, so that an application on either major compiles with skipLibCheck off', () => {
    // Every declaration file the entry points reach, through their relative imports.
    const seen = new Set<string>();
    const queue = [
      manifest.types,
      ...Object.values(manifest.exports).flatMap((target) => (typeof target === 'string' ? [] : [target['types']!])),
    ]
      .filter(Boolean)
      .map((path) => join(ROOT, path));
    const named: string[] = [];
    while (queue.length > 0) {
      const file = queue.pop()!;
      if (seen.has(file)) continue;
      seen.add(file);
      for (const [, specifier] of readFileSync(file, 'utf8').matchAll(/(?:from\s+|import\()\s*['"]([^'"]+)['"]/g)) {
        if (specifier!.startsWith('.')) {
          const path = join(dirname(file), specifier!.replace(/\.js$/, '.d.ts'));
          queue.push(existsSync(path) ? path : join(dirname(file), specifier!, 'index.d.ts'));
        } else if (/^(@mikro-orm\/(?!core$)|knex$|kysely$)/.test(specifier!)) {
          named.push(`${posix.relative(ROOT, file)} names ${specifier}`);
        }
      }
    }
    expect(seen.size, 'declaration files reached').to.be.above(50);
    expect(named).to.deep.equal([]);
  });

  it('is built with its bin executable, so that npx service-auth runs in the repository itself', () => {
    // tsc writes files without the execute bit; npm sets it only when it installs the package.
    for (const bin of Object.values(manifest.bin))
      expect(statSync(join(ROOT, bin)).mode & 0o111, `${bin} (npm run build)`).to.equal(0o111);
  });

  it('holds everything the README and the shipped documents link to', async () => {
    const documents = files.filter((file) => file.endsWith('.md'));
    expect(documents).to.include.members(['README.md', 'docs/configuration.md']);
    const missing: string[] = [];
    let count = 0;
    for (const document of documents) {
      for (const target of relativeLinks(await readFile(join(ROOT, document), 'utf8'))) {
        count++;
        // Where the link leads inside the package: relative to the document's folder.
        const path = posix.normalize(posix.join(posix.dirname(document), decodeURIComponent(target)));
        if (!files.some((file) => file === path || file.startsWith(path.replace(/\/?$/, '/'))))
          missing.push(`${document}: ${target}`);
      }
    }
    expect(count).to.be.above(20);
    expect(missing, 'link to the repository on GitHub instead (package.json repository)').to.deep.equal([]);
  });

  it('names its repository, and what its documents link to there exists in it', async () => {
    expect(manifest.repository).to.deep.equal({ type: 'git', url: `git+${REPOSITORY}.git` });
    expect(manifest.homepage).to.match(new RegExp(`^${REPOSITORY}\\b`));
    const missing: string[] = [];
    for (const document of files.filter((file) => file.endsWith('.md'))) {
      const text = await readFile(join(ROOT, document), 'utf8');
      for (const [, path] of text.matchAll(new RegExp(`${REPOSITORY}/blob/main/([^)#\\s]+)`, 'g'))) {
        if (!existsSync(join(ROOT, path!))) missing.push(`${document}: ${path}`);
      }
    }
    expect(missing).to.deep.equal([]);
  });

  it('leaves express, @casl/ability and MikroORM to the application: they are peer dependencies, the database drivers optional ones', () => {
    const peers = [
      'express',
      '@casl/ability',
      '@mikro-orm/core',
      '@mikro-orm/knex',
      '@mikro-orm/migrations',
      '@mikro-orm/sqlite',
      '@mikro-orm/postgresql',
    ];
    expect(Object.keys(manifest.peerDependencies)).to.include.members(peers);
    expect(
      Object.keys(manifest.dependencies ?? {}).filter((name) => peers.includes(name) || name.startsWith('@mikro-orm/')),
    ).to.deep.equal([]);
    const optional = Object.entries(manifest.peerDependenciesMeta ?? {})
      .filter(([, meta]) => meta.optional)
      .map(([name]) => name);
    // The drivers, the SQL layer of each major: knex (MikroORM 6 only), @mikro-orm/sql (7 only), and
    // argon2, for a Node without crypto.argon2 (20, 22).
    expect(optional.sort()).to.deep.equal([
      '@mikro-orm/knex',
      '@mikro-orm/postgresql',
      '@mikro-orm/sql',
      '@mikro-orm/sqlite',
      'argon2',
    ]);
    // One range for every @mikro-orm package of both majors, and one version of them all for the repository itself.
    const mikroOrm = (dependencies: Record<string, string>) =>
      new Set(
        Object.entries(dependencies)
          .filter(([name]) => name.startsWith('@mikro-orm/'))
          .map(([, version]) => version),
      );
    const { '@mikro-orm/knex': knex, '@mikro-orm/sql': sql, ...bothMajors } = manifest.peerDependencies;
    expect({ knex, sql }).to.deep.equal({ knex: '^6.6.4', sql: '^7' });
    expect([...mikroOrm(bothMajors)]).to.deep.equal(['^6.6.4 || ^7']);
    expect(mikroOrm(manifest.devDependencies).size).to.equal(1);
  });

  it("says which Node goes with which MikroORM as engines and the README's Requirements do: 20.19 or later with 6, 22.17 or later with 7 (the installed one's own engines agree)", async () => {
    const readme = await readFile(join(ROOT, 'README.md'), 'utf8');
    const requirements = readme.slice(readme.indexOf('## Requirements'), readme.indexOf('## Quick start'));
    expect(requirements).to.contain('Node.js 22.17 or later with MikroORM 7, or 20.19 or later with MikroORM 6');
    expect((manifest as { engines?: { node?: string } }).engines?.node, 'engines: the lower of the two').to.equal(
      '>=20.19',
    );
    const core = JSON.parse(await readFile(join(ROOT, 'node_modules/@mikro-orm/core/package.json'), 'utf8')) as {
      version: string;
      engines: { node: string };
    };
    // The installed MikroORM's own minimum: 22.17 for 7, as the README says; below 20.19 for 6.
    const needs = /(\d+)\.(\d+)/.exec(core.engines.node)!.slice(1).map(Number) as [number, number];
    if (core.version.startsWith('7.')) expect(needs, core.engines.node).to.deep.equal([22, 17]);
    else expect(needs[0] * 100 + needs[1], core.engines.node).to.be.at.most(20 * 100 + 19);
  });

  it("the README's install lines install the peer dependencies npm leaves to the application (express, @casl/ability, the SQLite driver, argon2 on Node 20), and tsx, which runs its quick start on Node 20", async () => {
    const readme = await readFile(join(ROOT, 'README.md'), 'utf8');
    const install = readme.slice(readme.indexOf('## Install'), readme.indexOf('## Requirements'));
    const packages = (flag: string) =>
      [...install.matchAll(new RegExp(`^npm install ${flag}([^#\\n]+)`, 'gm'))].flatMap((match) =>
        match[1]!.trim().split(/\s+/),
      );
    // npm installs the required peers itself; the optional ones are the database drivers, of which the line names SQLite's.
    const optional = new Set(
      Object.entries(manifest.peerDependenciesMeta ?? {})
        .filter(([, meta]) => meta.optional)
        .map(([name]) => name),
    );
    const named = packages('').map((name) => name.replace(/(?<=.)@[^@/]+$/, ''));
    expect(named, 'npm install').to.include.members([
      'service-auth',
      ...Object.keys(manifest.peerDependencies).filter(
        (name) => !optional.has(name) && !name.startsWith('@mikro-orm/'),
      ),
      '@mikro-orm/sqlite',
    ]);
    expect(readme).to.contain('npx tsx app.ts');
    expect(readme).to.contain('`node app.ts`');
    expect(packages('-D '), 'npm install -D').to.include.members(['tsx', 'typescript']);
    // argon2 where Node has no crypto.argon2: on the MikroORM 6 line (Node 20), not on the 7 one (Node 24.7+).
    const line = (marker: RegExp) => install.split('\n').find((each) => marker.test(each)) ?? '';
    expect(line(/# MikroORM 7\b/).split(/\s+/)).to.not.include('argon2');
    expect(line(/# .*MikroORM 6\b/).split(/\s+/)).to.include('argon2');
    expect(manifest.peerDependenciesMeta?.['argon2']?.optional, 'argon2: an optional peer dependency').to.equal(true);
    expect(manifest.dependencies ?? {}).to.not.have.property('argon2');
    // Under the repository's own commands at the top, the same install line, for a reader of the package.
    const top = readme.slice(0, readme.indexOf('\n## '));
    expect(top).to.contain(`In your application: \`${/^npm install [^#\n]+?(?=\s*(#|$))/m.exec(install)![0]}\``);
  });

  const WHY =
    "it installs MikroORM 6's packages and sqlite3; pack-mikro-orm-7.test.ts installs the README's MikroORM 7 line";
  for (const mikroOrm of MIKRO_ORM_VERSIONS) {
    const title = `a TypeScript application made from the tarball alone, as the README has it, on the ${mikroOrm.name} MikroORM of the range (${mikroOrm.version})`;
    describeOnMikroOrm6(title, WHY, () => {
      let dir: string;
      let server: ChildProcess | undefined;
      let url: string;

      before(async () => {
        dir = await installedApplication(mikroOrm);
        const port = await freePort();
        await writeApplicationFiles(dir, port);
        url = `http://localhost:${port}`;
        // The README's TypeScript as it is, on a free port, run with the application's tsx (Node 20).
        ({ server } = await startQuickStart(dir, port, ['--import', 'tsx']));
      });
      after(() => {
        server?.kill();
      });

      const json = (path: string, init: RequestInit = {}) =>
        fetch(`${url}${path}`, { ...init, headers: { 'Content-Type': 'application/json', ...init.headers } });
      const cli = (args: string[], input = '') => run(dir, [CLI, 'auth', ...args], input);

      // Once is enough: the declarations are the same for both ends of the range.
      if (mikroOrm.name === 'newest')
        it('type-checks the quick start against the published types, every declaration file checked (skipLibCheck off)', async () => {
          expect(await typeCheckQuickStart(dir)).to.equal('');
        });

      it('installs one copy of each @mikro-orm package, the version the application asked for, and no PostgreSQL driver', async () => {
        const copies = await mikroOrmCopies(join(dir, 'node_modules'));
        expect(copies).to.deep.equal(
          Object.fromEntries(APPLICATION_MIKRO_ORM.map((name) => [name, [mikroOrm.version]])),
        );
      });

      it('creates a first admin with the installed CLI, who logs in and reaches /admin', async () => {
        const created = await cli(
          ['create-user', '--email', 'admin@example.com', '--role', 'admin', '--admin', '--password-stdin'],
          `${PASSWORD}\n`,
        );
        expect(created.code, created.stderr).to.equal(0);
        const login = await json('/service-auth/login', {
          method: 'POST',
          body: JSON.stringify({ email: 'admin@example.com', password: PASSWORD }),
        });
        expect(login.status).to.equal(200);
        const cookie = login.headers.get('set-cookie')!.split(';')[0]!;
        expect(await (await fetch(`${url}/admin`, { headers: { Cookie: cookie } })).json()).to.deep.equal({
          hello: 'admin@example.com',
        });
        expect((await fetch(`${url}/admin`)).status).to.equal(401);
      });

      it('gives a member who registers their team and their note, and nothing else', async () => {
        const register = await json('/service-auth/register', {
          method: 'POST',
          body: JSON.stringify({ email: 'ada@example.com', password: PASSWORD }),
        });
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
        // app.ts logs as it loads and listens: on stderr.
        expect(await cli(['test-policies', 'policies/tests/app.json', '--app', 'app.ts'])).to.deep.include({
          code: 0,
          stdout: '3 passed, 0 failed\n',
        });
      });

      // Once is enough: how the CLI loads an application does not depend on MikroORM's version.
      if (mikroOrm.name === 'newest')
        it('loads app.ts, which listens on the port the server holds and logs, for auth check and create-token: stdout holds only their output, and they exit', async function () {
          this.timeout(60_000); // a command left running by the application's server fails here, not at the suite's timeout
          const check = await cli([
            'check',
            '--email',
            'admin@example.com',
            '--action',
            'read',
            '--subject',
            'Report',
            '--field',
            'team=south',
            '--app',
            'app.ts',
          ]);
          const token = await cli([
            'create-token',
            '--email',
            'admin@example.com',
            '--name',
            'deploy',
            '--app',
            'app.ts',
          ]);
          for (const result of [check, token]) {
            expect(result.code, result.stderr).to.equal(0);
            expect(result.stderr).to.match(/^app\.ts loaded\nListening on http:\/\/localhost:\d+\n/);
          }
          expect(check.stdout).to.match(/^allowed\nby role "admin".*\n$/);
          expect(token.stdout).to.match(/^sat_[\w-]+\n$/);
          const admin = await fetch(`${url}/admin`, { headers: { Authorization: `Bearer ${token.stdout.trim()}` } });
          expect(admin.status).to.equal(200);
        });

      it("keeps the package's tables and rows, the audit log's included, through the application's own MikroORM schema:update with skipTables: SERVICE_AUTH_TABLES", async () => {
        const update = await run(dir, ['--import', 'tsx', 'schema-update.ts']);
        expect(update.stderr).to.equal('');
        const { tables, users, events } = JSON.parse(update.stdout) as {
          tables: string[];
          users: number;
          events: number;
        };
        const { SERVICE_AUTH_TABLES } = (await import(
          pathToFileURL(join(dir, 'node_modules/service-auth/dist/src/index.js')).href
        )) as { SERVICE_AUTH_TABLES: string[] };
        expect(tables).to.deep.equal([...SERVICE_AUTH_TABLES, 'app_notes'].sort());
        // The admin and the member, and what the audit log recorded of them.
        expect(users).to.equal(2);
        expect(events).to.be.at.least(3);
        const login = await json('/service-auth/login', {
          method: 'POST',
          body: JSON.stringify({ email: 'admin@example.com', password: PASSWORD }),
        });
        expect(login.status).to.equal(200);
      });

      // Once is enough: the message names the installed version, which only the lowest shows is not the repository's.
      if (mikroOrm.name === 'lowest')
        it('names the driver to install, at the version of the installed MikroORM, for a database whose driver the application lacks', async () => {
          const version = JSON.parse(
            await readFile(join(dir, 'node_modules/@mikro-orm/core/package.json'), 'utf8'),
          ) as { version: string };
          expect(await cli(['list-users', '--database', 'postgresql://auth@127.0.0.1:1/app'])).to.deep.equal({
            code: 1,
            stdout: '',
            stderr: `Database unavailable: cannot open the database postgresql://auth@127.0.0.1:1/app: the PostgreSQL driver is not installed: npm install @mikro-orm/postgresql@${version.version}\n`,
          });
        });

      it("hands the application's own pino an error object with the request, not a string", async () => {
        // A route that throws, answered by the package's error middleware, logged through pino.
        await writeFile(
          join(dir, 'pino-check.ts'),
          `import express from 'express';
import { pino } from 'pino';
import { ServiceAuth } from 'service-auth';

const lines: string[] = [];
const app = express();
app.set('SERVICE_AUTH_DATABASE_URL', 'sqlite::memory:');
app.set('SERVICE_AUTH_PUBLIC_URL', 'http://localhost');
const auth = new ServiceAuth(app);
auth.logger = pino({ base: null }, { write: (line: string) => void lines.push(line) });
app.get('/boom', () => {
  throw new Error('the handler broke');
});
app.use(auth.errorHandler);
await auth.ready;
const server = app.listen(0);
await new Promise((resolve) => server.once('listening', resolve));
const { port } = server.address() as { port: number };
const status = (await fetch(\`http://127.0.0.1:\${port}/boom?secret=1\`, { headers: { 'X-Request-Id': 'req-42' } })).status;
server.close();
await auth.close();
process.stdout.write(JSON.stringify({ status, lines }));
`,
        );
        const result = await run(dir, ['--import', 'tsx', 'pino-check.ts']);
        expect(result.code, result.stderr).to.equal(0);
        const { status, lines } = JSON.parse(result.stdout) as { status: number; lines: string[] };
        expect(status).to.equal(500);
        const records = lines.map(
          (line) =>
            JSON.parse(line) as {
              level: number;
              err?: { type: string; message: string; stack: string };
              req?: unknown;
              msg: string;
            },
        );
        const logged = records.find((record) => record.err !== undefined);
        expect(logged, JSON.stringify(records)).not.to.equal(undefined);
        expect(logged!.level).to.equal(50);
        expect(logged!.err).to.include({ type: 'Error', message: 'the handler broke' });
        expect(logged!.err!.stack).to.contain('pino-check.ts');
        expect(logged!.req).to.deep.equal({ method: 'GET', path: '/boom', id: 'req-42' });
      });
    });
  }
});
