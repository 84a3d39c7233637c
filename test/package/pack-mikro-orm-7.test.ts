/**
 * The packed tarball installed as a new user on MikroORM 7 installs it: in an empty folder, with
 * the README's own MikroORM 7 install line and its development line (read from README.md, so the
 * README cannot drift), by npm 12 on the Node that runs this suite (24, scripts/test-mikro-orm-7.sh,
 * which names npm 12 in SERVICE_AUTH_TEST_NPM_CLI). Then the README's quick start runs as it is,
 * with `node app.ts` (Node's type stripping; no tsx, whose esbuild has an install script).
 * SQLite is node:sqlite and passwords are hashed by Node's crypto.argon2: nothing native in
 * node_modules, no install script to approve. On a Node without crypto.argon2 (22:
 * SERVICE_AUTH_TEST_NODE=22), the quick start first stops naming `npm install argon2`, and runs
 * once argon2 is installed, whose prebuilt binding is then the one native module.
 */
import { expect } from 'chai';
import { execFile, type ChildProcess } from 'node:child_process';
import * as crypto from 'node:crypto';
import { existsSync } from 'node:fs';
import { mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { promisify } from 'node:util';
import { describeOnMikroOrm7 } from '../helpers/orm.js';
import { freePort } from '../helpers/ports.js';
import { ROOT } from '../helpers/processes.js';
import { startQuickStart, typeCheckQuickStart } from './application.js';

const WHY = "it installs the README's MikroORM 7 line with npm 12 (scripts/test-mikro-orm-7.sh)";
const PASSWORD = 'Correct-Horse-Battery-9';
/** Node 24.7 and later: passwords need no package. */
const NODE_HAS_ARGON2 = typeof (crypto as { argon2?: unknown }).argon2 === 'function';

/** The README's install lines: the MikroORM 7 one and the development one, as commands. */
async function installLines(): Promise<{ mikroOrm7: string[]; development: string[] }> {
  const readme = await readFile(join(ROOT, 'README.md'), 'utf8');
  const install = readme.slice(readme.indexOf('## Install'), readme.indexOf('## Requirements'));
  const line = (test: RegExp) => {
    const found = install.split('\n').find((each) => test.test(each));
    expect(found, `README's install line ${test}`).to.not.equal(undefined);
    return found!.replace(/#.*$/, '').trim().split(/\s+/);
  };
  return { mikroOrm7: line(/^npm install .*# MikroORM 7\b/), development: line(/^npm install -D .*\btypescript\b/) };
}

/** Every file under `dir` whose name ends in `.node` (a native binding), relative to `dir`. */
async function nativeFiles(dir: string): Promise<string[]> {
  const found: string[] = [];
  for (const entry of await readdir(dir, { recursive: true, withFileTypes: true }))
    if (entry.isFile() && entry.name.endsWith('.node')) found.push(relative(dir, join(entry.parentPath, entry.name)));
  return found;
}

describeOnMikroOrm7('the tarball installed with the README’s MikroORM 7 line, by npm 12', WHY, function () {
  this.timeout(600_000);
  const npmCli = process.env['SERVICE_AUTH_TEST_NPM_CLI'];
  let dir: string;
  let installOutput = '';
  let server: ChildProcess | undefined;
  let output: () => string;
  let withoutArgon2 = '';
  let url: string;

  const npm = async (args: string[]) => {
    const { stdout, stderr } = await promisify(execFile)(process.execPath, [npmCli!, ...args], {
      cwd: dir,
      maxBuffer: 16 << 20,
    });
    return stdout + stderr;
  };

  before(async () => {
    expect(npmCli, 'SERVICE_AUTH_TEST_NPM_CLI: npm 12, as scripts/test-mikro-orm-7.sh sets it').to.be.a('string');
    expect(await npm(['--version'])).to.match(/^12\./);
    dir = await mkdtemp(join(tmpdir(), 'service-auth-app-7-'));
    const packed = await mkdtemp(join(tmpdir(), 'service-auth-tarball-7-'));
    const { stdout } = await promisify(execFile)(
      process.execPath,
      [npmCli!, 'pack', '--ignore-scripts', '--pack-destination', packed],
      { cwd: ROOT },
    );
    const tarball = join(packed, stdout.trim().split('\n').pop()!);
    await writeFile(join(dir, 'package.json'), JSON.stringify({ name: 'app', private: true, type: 'module' }));
    const { mikroOrm7, development } = await installLines();
    for (const command of [mikroOrm7, development]) {
      // `npm install …` as the README says it, this checkout's tarball in place of the registry's package.
      const args = command.slice(1).map((word) => (word === 'service-auth' ? tarball : word));
      installOutput += await npm([...args, '--no-audit', '--no-fund']);
    }
    await rm(packed, { recursive: true, force: true });

    const port = await freePort();
    url = `http://localhost:${port}`;
    if (!NODE_HAS_ARGON2) {
      // Node 22: the README's Requirements add argon2 to the line; without it the start says so.
      withoutArgon2 = await startQuickStart(dir, port).then(
        (started) => (started.server.kill(), started.output()),
        (error: Error) => error.message,
      );
      installOutput += await npm(['install', 'argon2', '--no-audit', '--no-fund']);
    }
    // `node app.ts`, as the README says: Node strips the types, no loader.
    ({ server, output } = await startQuickStart(dir, port));
  });
  after(async () => {
    server?.kill();
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  it('installs MikroORM 7 with nothing native: no sqlite3, no knex, no tsx, and on Node 24.7+ no argon2 and no *.node file at all', async () => {
    const modules = join(dir, 'node_modules');
    for (const absent of [
      'sqlite3',
      'better-sqlite3',
      'knex',
      '@mikro-orm/knex',
      '@mikro-orm/sqlite',
      'tsx',
      'esbuild',
    ])
      expect(existsSync(join(modules, absent)), absent).to.equal(false);
    expect(existsSync(join(modules, 'argon2')), 'argon2, on a Node without crypto.argon2 only').to.equal(
      !NODE_HAS_ARGON2,
    );
    const core = JSON.parse(await readFile(join(modules, '@mikro-orm/core/package.json'), 'utf8')) as {
      version: string;
    };
    expect(core.version).to.match(/^7\./);
    // On Node 22, argon2's prebuilt binding, which loads without its install script.
    const allowed = NODE_HAS_ARGON2 ? [] : ['argon2'];
    const native = (await nativeFiles(modules)).filter(
      (file) => !allowed.some((name) => file.startsWith(`${name}/prebuilds/`)),
    );
    expect(native).to.deep.equal([]);
  });

  it('leaves no install script to approve: npm 12 blocks none at install, and `npm install-scripts ls` lists none (on Node 22, argon2’s)', async () => {
    // On Node 22, argon2's (node-gyp-build, which finds its prebuilt binding: nothing to build).
    const allowed = NODE_HAS_ARGON2 ? [] : ['argon2'];
    const blocked = [...installOutput.matchAll(/^npm warn install-scripts\s+(\S+)@\S+ \(/gm)].map((match) => match[1]!);
    expect(blocked, installOutput).to.deep.equal(allowed);
    const { stdout } = await promisify(execFile)(process.execPath, [npmCli!, 'install-scripts', 'ls', '--json'], {
      cwd: dir,
    });
    const listed = JSON.parse(stdout) as { allowScripts: { name: string }[] };
    expect(listed.allowScripts.map((each) => each.name)).to.deep.equal(allowed);
  });

  (NODE_HAS_ARGON2 ? it.skip : it)(
    NODE_HAS_ARGON2
      ? 'names `npm install argon2` at start on a Node without crypto.argon2 (runs on Node 22: SERVICE_AUTH_TEST_NODE=22)'
      : 'names `npm install argon2` at start on a Node without crypto.argon2, before argon2 is installed',
    () => {
      expect(withoutArgon2).to.contain('npm install argon2');
      expect(withoutArgon2).to.not.contain('Listening on');
    },
  );

  it('type-checks the quick start against the published types on MikroORM 7, every declaration file checked (skipLibCheck off)', async () => {
    expect(await typeCheckQuickStart(dir)).to.equal('');
  });

  it('runs the quick start with `node app.ts`: a member registers and is given the role member', async () => {
    const register = await fetch(`${url}/service-auth/register`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify({ email: 'ada@example.com', password: PASSWORD }),
    });
    expect(register.status, output()).to.equal(201);
    const { user } = (await register.json()) as { user: { roles: string[] } };
    expect(user.roles).to.deep.equal(['member']);
    expect(output()).to.not.match(/\bError\b/);
  });
});
