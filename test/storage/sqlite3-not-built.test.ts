/**
 * npm 12 installs `sqlite3` without running its install script unless the application approved
 * it: the package is there, its native binding is not. Start-up says how to build it, not knex's
 * "run npm install sqlite3" (it is installed). A real process of the built CLI, on a module path
 * where everything is the repository's except a `sqlite3` copied without its build.
 */
import { expect } from 'chai';
import { cp, mkdir, readdir, rm, symlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { temporaryDirectory } from '../helpers/app.js';
import { describeOnMikroOrm6 } from '../helpers/orm.js';
import { ROOT } from '../helpers/processes.js';
import { assertBuilt, runCli } from '../cli/cli-process.js';

const WHY = "sqlite3 is MikroORM 6's SQLite driver; 7's is node:sqlite, with nothing to build";

describeOnMikroOrm6('SQLite driver installed but not built (npm 12 without the approval)', WHY, () => {
  it('fails start-up naming the approval and the rebuild, with no advice to install it', async () => {
    assertBuilt();
    const dir = await temporaryDirectory();
    try {
      await notBuilt(dir);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});

async function notBuilt(dir: string): Promise<void> {
  const modules = join(dir, 'node_modules');
  await mkdir(modules);
  for (const name of await readdir(join(ROOT, 'node_modules'))) {
    if (name === 'sqlite3' || name === 'service-auth' || name.startsWith('.')) continue;
    await symlink(join(ROOT, 'node_modules', name), join(modules, name));
  }
  // sqlite3 as npm 12 leaves it: its JavaScript, no build/ with the binding.
  await mkdir(join(modules, 'sqlite3'));
  for (const part of ['package.json', 'lib']) {
    await cp(join(ROOT, 'node_modules/sqlite3', part), join(modules, 'sqlite3', part), { recursive: true });
  }
  const own = join(modules, 'service-auth');
  await mkdir(own);
  await cp(join(ROOT, 'package.json'), join(own, 'package.json'));
  await symlink(join(ROOT, 'dist'), join(own, 'dist'));
  await writeFile(join(dir, 'package.json'), '{ "type": "module" }\n');

  // --preserve-symlinks: each package resolves its own imports from where it is linked, here.
  const preserve = ['--preserve-symlinks', '--preserve-symlinks-main'];
  const result = await runCli([...preserve, join(own, 'dist/cli/index.js'), 'auth', 'migrate'], {
    runner: 'node',
    cwd: dir,
    env: { SERVICE_AUTH_DATABASE_URL: `sqlite:${join(dir, 'auth.sqlite')}` },
  });
  expect(result.code).to.equal(1);
  expect(result.stderr).to.include('npm install-scripts approve sqlite3 && npm rebuild sqlite3');
  expect(result.stderr).to.include('`sqlite3` is installed but its native part was not built');
  expect(result.stderr).not.to.include('npm install sqlite3');
}
