/**
 * The packed tarball installed as a new user on MikroORM 7 installs it: in an empty folder, with
 * the README's own MikroORM 7 install line and its development line (read from README.md, so the
 * README cannot drift), by npm 12 on the Node that runs this suite (24, scripts/test-mikro-orm-7.sh,
 * which names npm 12 in SERVICE_AUTH_TEST_NPM_CLI). Then the README's quick start runs as it is.
 * SQLite is node:sqlite: no sqlite3, no knex; the one native module is argon2's prebuilt binding,
 * which loads without its install script, so the install leaves nothing to approve for the quick
 * start to run (npm 12 still lists argon2's script as blocked, and esbuild's, from tsx).
 */
import { expect } from 'chai';
import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { promisify } from 'node:util';
import { codeBlocks } from '../docs/code-blocks.js';
import { describeOnMikroOrm7 } from '../helpers/orm.js';
import { freePort } from '../helpers/ports.js';
import { ROOT } from '../helpers/processes.js';

const WHY = "it installs the README's MikroORM 7 line with npm 12 (scripts/test-mikro-orm-7.sh)";
const PASSWORD = 'Correct-Horse-Battery-9';

/** The README's install lines: the MikroORM 7 one and the development one, as commands. */
async function installLines(): Promise<{ mikroOrm7: string[]; development: string[] }> {
  const readme = await readFile(join(ROOT, 'README.md'), 'utf8');
  const install = readme.slice(readme.indexOf('## Install'), readme.indexOf('## Requirements'));
  const line = (test: RegExp) => {
    const found = install.split('\n').find((each) => test.test(each));
    expect(found, `README's install line ${test}`).to.not.equal(undefined);
    return found!.replace(/#.*$/, '').trim().split(/\s+/);
  };
  return { mikroOrm7: line(/^npm install .*# MikroORM 7\b/), development: line(/^npm install -D /) };
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
  let output = '';
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
    const quickStart = codeBlocks(await readFile(join(ROOT, 'README.md'), 'utf8')).find(
      (block) => /^ts\b/.test(block.info) && block.code.includes('new ServiceAuth(app)'),
    )!;
    await writeFile(join(dir, 'quick-start.ts'), quickStart.code.replaceAll('3000', String(port)));
    server = spawn(process.execPath, ['--import', 'tsx', 'quick-start.ts'], { cwd: dir, stdio: 'pipe' });
    server.stdout!.on('data', (chunk: Buffer) => (output += chunk.toString()));
    server.stderr!.on('data', (chunk: Buffer) => (output += chunk.toString()));
    for (const deadline = Date.now() + 60_000; !output.includes('Listening on');) {
      if (Date.now() > deadline || server.exitCode !== null)
        throw new Error(`the quick start did not start:\n${output}`);
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  });
  after(async () => {
    server?.kill();
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  it('installs MikroORM 7 with no SQLite driver to build: no sqlite3, no knex, no native binding but argon2’s prebuilt one', async () => {
    const modules = join(dir, 'node_modules');
    for (const absent of ['sqlite3', 'better-sqlite3', 'knex', '@mikro-orm/knex', '@mikro-orm/sqlite'])
      expect(existsSync(join(modules, absent)), absent).to.equal(false);
    const core = JSON.parse(await readFile(join(modules, '@mikro-orm/core/package.json'), 'utf8')) as {
      version: string;
    };
    expect(core.version).to.match(/^7\./);
    expect((await nativeFiles(modules)).filter((file) => !file.startsWith('argon2/prebuilds/'))).to.deep.equal([]);
  });

  // What npm 12 blocks, none of it needed: argon2's build (its prebuilt binding loads) and, from the
  // development line, tsx's esbuild's check (its platform package holds the binary). Nothing of ours.
  const NOT_NEEDED = ['argon2', 'esbuild'];

  it('leaves no install script to approve for the quick start: npm 12 blocks only argon2’s and esbuild’s, neither needed', () => {
    const blocked = [...installOutput.matchAll(/^npm warn install-scripts\s+(\S+)@\S+ \(/gm)].map((match) => match[1]);
    expect(
      blocked.filter((name) => !NOT_NEEDED.includes(name!)),
      installOutput,
    ).to.deep.equal([]);
  });

  it('type-checks the quick start against the published types on MikroORM 7 (skipLibCheck on, as tsc --init writes it)', async () => {
    await writeFile(
      join(dir, 'tsconfig.json'),
      JSON.stringify({
        // skipLibCheck: some of the package's declarations still name @mikro-orm/knex's types (storage's
        // EntityManager), which a check of every declaration file would not find on MikroORM 7.
        compilerOptions: {
          module: 'NodeNext',
          moduleResolution: 'NodeNext',
          target: 'ES2022',
          strict: true,
          noEmit: true,
          skipLibCheck: true,
        },
        files: ['quick-start.ts'],
      }),
    );
    const tsc = await promisify(execFile)(process.execPath, ['node_modules/typescript/bin/tsc', '-p', '.'], {
      cwd: dir,
    }).then(
      ({ stdout }) => stdout,
      (failed: { stdout: string }) => failed.stdout,
    );
    expect(tsc).to.equal('');
  });

  it('runs the quick start: a member registers and is given the role member', async () => {
    const register = await fetch(`${url}/service-auth/register`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify({ email: 'ada@example.com', password: PASSWORD }),
    });
    expect(register.status, output).to.equal(201);
    const { user } = (await register.json()) as { user: { roles: string[] } };
    expect(user.roles).to.deep.equal(['member']);
    expect(output).to.not.match(/\bError\b/);
  });
});
