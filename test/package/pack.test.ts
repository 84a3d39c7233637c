/**
 * The package as npm publishes it: what `npm pack` puts in the tarball (the build, the README, the
 * LICENSE and everything they link to; no tests, no TypeScript sources), and an
 * application made from that tarball alone, as a new user would: `npm install <tarball> express`,
 * the README's quick start, the CLI that creates a first admin.
 */
import { expect } from 'chai';
import { execFileSync, spawn } from 'node:child_process';
import { existsSync, statSync } from 'node:fs';
import { cp, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, posix } from 'node:path';
import ts from 'typescript';
import { codeBlocks } from '../docs/code-blocks.js';
import { freePort } from '../helpers/ports.js';
import { ROOT } from '../helpers/processes.js';

const NPM = process.platform === 'win32' ? 'npm.cmd' : 'npm';
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

const manifest = JSON.parse(await readFile(join(ROOT, 'package.json'), 'utf8')) as {
  main: string;
  types: string;
  bin: Record<string, string>;
  exports: Record<string, string | Record<string, string>>;
  peerDependencies?: Record<string, string>;
  dependencies?: Record<string, string>;
  repository?: unknown;
  homepage?: string;
};

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

describe('the published package', function () {
  this.timeout(600_000);
  let files: string[];

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

  it('is built with its bin executable, so that npx service-auth runs in the repository itself', () => {
    // tsc writes files without the execute bit; npm sets it only when it installs the package.
    for (const bin of Object.values(manifest.bin)) expect(statSync(join(ROOT, bin)).mode & 0o111, `${bin} (npm run build)`).to.equal(0o111);
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
        if (!files.some((file) => file === path || file.startsWith(path.replace(/\/?$/, '/')))) missing.push(`${document}: ${target}`);
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

  it("leaves express and @casl/ability to the application: they are peer dependencies", () => {
    expect(Object.keys(manifest.peerDependencies ?? {})).to.include.members(['express', '@casl/ability']);
    expect(Object.keys(manifest.dependencies ?? {})).not.to.include.members(['express']);
    expect(Object.keys(manifest.dependencies ?? {})).not.to.include('@casl/ability');
  });

  it("the README's install lines install every peer dependency, and tsx, which its quick start runs", async () => {
    const readme = await readFile(join(ROOT, 'README.md'), 'utf8');
    const install = readme.slice(readme.indexOf('## Install'), readme.indexOf('## Requirements'));
    const packages = (flag: string) => [...install.matchAll(new RegExp(`^npm install ${flag}([^#\\n]+)`, 'gm'))].flatMap((match) => match[1]!.trim().split(/\s+/));
    expect(packages(''), 'npm install').to.include.members(['service-auth', ...Object.keys(manifest.peerDependencies ?? {})]);
    expect(readme).to.contain('npx tsx app.ts');
    expect(packages('-D '), 'npm install -D').to.include.members(['tsx', 'typescript']);
  });

  describe("an application made from the tarball alone, as the README's quick start has it", () => {
    let dir: string;
    let server: ReturnType<typeof spawn> | undefined;
    let url: string;
    let output = '';

    before(async () => {
      dir = await mkdtemp(join(tmpdir(), 'service-auth-quick-start-'));
      const tarball = execFileSync(NPM, ['pack', '--ignore-scripts', '--pack-destination', dir], { cwd: ROOT, encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }).trim().split('\n').pop()!;
      await writeFile(join(dir, 'package.json'), JSON.stringify({ name: 'quick-start', private: true, type: 'module' }));
      // From the registry as a user would, the cache first (CI has just filled it), but without
      // the install scripts, whose work this checkout has already done (useBuiltBindings).
      execFileSync(NPM, ['install', '--prefer-offline', '--no-audit', '--no-fund', '--ignore-scripts', join(dir, tarball), 'express'], { cwd: dir, stdio: 'ignore' });
      await useBuiltBindings(dir);
      const port = await freePort();
      url = `http://localhost:${port}`;
      const quickStart = codeBlocks(await readFile(join(ROOT, 'README.md'), 'utf8')).find((block) => /^ts\b/.test(block.info) && block.code.includes('new ServiceAuth(app)'))!;
      // The README's TypeScript, compiled as tsc would (types were checked by test/docs), on a free port.
      const javascript = ts.transpileModule(quickStart.code.replaceAll('3000', String(port)), { compilerOptions: { module: ts.ModuleKind.ES2022, target: ts.ScriptTarget.ES2022 } }).outputText;
      await writeFile(join(dir, 'app.js'), javascript);
      server = spawn(process.execPath, ['app.js'], { cwd: dir, stdio: ['ignore', 'pipe', 'pipe'] });
      server.stdout!.on('data', (chunk: Buffer) => (output += chunk.toString()));
      server.stderr!.on('data', (chunk: Buffer) => (output += chunk.toString()));
      for (const deadline = Date.now() + 60_000; !output.includes('Listening on'); ) {
        if (Date.now() > deadline || server.exitCode !== null) throw new Error(`the quick start did not start:\n${output}`);
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
    });
    after(async () => {
      server?.kill();
      if (dir) await rm(dir, { recursive: true, force: true });
    });

    const json = (path: string, init: RequestInit = {}) => fetch(`${url}${path}`, { ...init, headers: { 'Content-Type': 'application/json', ...init.headers } });

    it('creates a first admin with the installed CLI, who logs in and reaches /admin', () => {
      execFileSync(process.execPath, ['node_modules/service-auth/dist/cli/index.js', 'auth', 'create-user', '--email', 'admin@example.com', '--role', 'admin', '--admin', '--password-stdin'], { cwd: dir, input: `${PASSWORD}\n`, stdio: ['pipe', 'ignore', 'pipe'] });
      return (async () => {
        const login = await json('/service-auth/login', { method: 'POST', body: JSON.stringify({ email: 'admin@example.com', password: PASSWORD }) });
        expect(login.status).to.equal(200);
        const cookie = login.headers.get('set-cookie')!.split(';')[0]!;
        expect(await (await fetch(`${url}/admin`, { headers: { Cookie: cookie } })).json()).to.deep.equal({ hello: 'admin@example.com' });
        expect((await fetch(`${url}/admin`)).status).to.equal(401);
      })();
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
  });
});
