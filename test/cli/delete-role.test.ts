/**
 * Roles can be removed (CONTRACT-2 §19 item 7): `auth delete-role` through the built binary on a
 * temporary SQLite file, and `auth.roles.delete` from code, on a running application.
 */
import { expect } from 'chai';
import request from 'supertest';
import { AuthError } from '../../src/index.js';
import { createTestApp, PASSWORD, sessionCookieFrom, temporaryDatabase, type TestApp } from '../helpers/app.js';
import { runBatch, runCli, type CliResult } from './cli-process.js';
import { runCliInProcess } from './in-process.js';

interface ListedUser {
  email: string;
  roles: string[];
}

describe('CLI: delete-role', () => {
  let database: Awaited<ReturnType<typeof temporaryDatabase>>;
  const results: Record<string, CliResult> = {};
  // In this process; --help and the refused deletion of a held role in a real one.
  const cli = (...args: string[]): Promise<CliResult> =>
    (args[1] === 'auditor' ? runCli : runCliInProcess)(['auth', ...args, '--database', database.url]);
  const run =
    (...args: string[]) =>
    (): Promise<CliResult> =>
      cli(...args);
  const listedRoles = (result: CliResult): string[] =>
    (JSON.parse(result.stdout) as { name: string }[]).map((role) => role.name);
  const listedUsers = (result: CliResult): Record<string, string[]> =>
    Object.fromEntries((JSON.parse(result.stdout) as ListedUser[]).map((user) => [user.email, user.roles]));

  before(async () => {
    database = await temporaryDatabase();
    // Migrates the file and arranges the data before any CLI process opens it.
    const t = await createTestApp({ SERVICE_AUTH_DATABASE_URL: database.url });
    try {
      await t.auth.roles.create('unused');
      await t.auth.users.create({ email: 'ada@example.com', password: PASSWORD, roles: ['editor', 'auditor'] });
      await t.auth.users.create({ email: 'bob@example.com', password: PASSWORD, roles: ['editor', 'viewer'] });
      await t.auth.users.create({ email: 'cy@example.com', password: PASSWORD, roles: ['auditor'] });
    } finally {
      await t.auth.close();
    }

    Object.assign(
      results,
      await runBatch({
        writers: {
          unused: run('delete-role', 'unused'),
          held: run('delete-role', 'auditor'),
          forced: run('delete-role', 'editor', '--force'),
        },
        others: {
          unknown: run('delete-role', 'no-such-role'),
          help: () => runCli(['auth', 'delete-role', '--help']),
        },
      }),
    );
    [results['roles'], results['users']] = await Promise.all([
      cli('list-roles', '--json'),
      cli('list-users', '--json'),
    ]);
  });
  after(async () => {
    await database.remove();
  });

  it('deletes a role nobody holds, and list-roles no longer lists it', () => {
    expect(results['unused']).to.deep.equal({ code: 0, stdout: 'Deleted role "unused"\n', stderr: '' });
    expect(results['roles']!.code, results['roles']!.stderr).to.equal(0);
    expect(listedRoles(results['roles']!)).to.not.include('unused');
  });

  it('refuses a role users still hold without --force, saying how many hold it, and changes nothing', () => {
    const { code, stdout, stderr } = results['held']!;
    expect({ code, stdout }).to.deep.equal({ code: 1, stdout: '' });
    expect(stderr).to.contain('auditor');
    expect(stderr).to.match(/\b2 users\b/);
    expect(listedRoles(results['roles']!)).to.include('auditor');
    const users = listedUsers(results['users']!);
    expect(users['ada@example.com']).to.include('auditor');
    expect(users['cy@example.com']).to.deep.equal(['auditor']);
  });

  it('with --force deletes a held role and takes it from everyone who held it', () => {
    const { code, stdout, stderr } = results['forced']!;
    expect({ code, stderr }).to.deep.equal({ code: 0, stderr: '' });
    expect(stdout).to.match(/^Deleted role "editor"/);
    expect(listedRoles(results['roles']!)).to.not.include('editor');
    expect(results['users']!.code, results['users']!.stderr).to.equal(0);
    expect(listedUsers(results['users']!)).to.deep.equal({
      'ada@example.com': ['auditor'],
      'bob@example.com': ['viewer'],
      'cy@example.com': ['auditor'],
    });
  });

  it('fails on an unknown role with "Not found"', () => {
    const { code, stdout, stderr } = results['unknown']!;
    expect({ code, stdout }).to.deep.equal({ code: 1, stdout: '' });
    expect(stderr).to.match(/^Not found: .*no-such-role/);
  });

  it('--help describes the command, its --force and examples', () => {
    const { code, stdout, stderr } = results['help']!;
    expect({ code, stderr }).to.deep.equal({ code: 0, stderr: '' });
    expect(stdout).to.contain('Delete a role');
    expect(stdout).to.contain('$ service-auth auth delete-role <name>');
    expect(stdout).to.match(/--force +Take the role from the users who hold it/);
    expect(stdout).to.contain('$ service-auth auth delete-role editor --force');
  });
});

describe('auth.roles.delete', () => {
  let t: TestApp;
  let editorCookie: string;
  const editPage = () => request(t.app).get('/edit').set('Cookie', editorCookie);
  const failure = (work: Promise<unknown>): Promise<unknown> =>
    work.then(
      () => null,
      (error: unknown) => error,
    );

  before(async () => {
    t = await createTestApp({ SERVICE_AUTH_RATE_LIMIT_ENABLED: false }, (app, auth) => {
      app.get('/edit', auth.rolesRequired('editor'), (_req, res) => {
        res.json({ ok: true });
      });
    });
    await t.auth.roles.create('unused');
    await t.auth.users.create({ email: 'ada@example.com', password: PASSWORD, roles: ['editor', 'viewer'] });
    const login = await request(t.app)
      .post('/service-auth/login')
      .send({ email: 'ada@example.com', password: PASSWORD })
      .expect(200);
    editorCookie = sessionCookieFrom(login)!;
  });
  after(async () => {
    await t.auth.close();
  });

  it('deletes a role nobody holds', async () => {
    expect(await t.auth.roles.delete('unused')).to.equal(0);
    expect((await t.auth.roles.list()).map((role) => role.name)).to.not.include('unused');
  });

  it('refuses a held role with role_in_use (409), changing nothing', async () => {
    const error = await failure(t.auth.roles.delete('editor'));
    expect(error).to.be.instanceOf(AuthError);
    expect(error).to.include({ code: 'role_in_use', status: 409 });
    expect((error as AuthError).message).to.match(/\b1 user\b/);
    expect((await t.auth.roles.list()).map((role) => role.name)).to.include('editor');
    expect([...(await t.auth.users.findByEmail('ada@example.com'))!.roles]).to.include('editor');
    await editPage().expect(200);
  });

  it('refuses an unknown role with not_found (404)', async () => {
    const error = await failure(t.auth.roles.delete('no-such-role'));
    expect(error).to.be.instanceOf(AuthError);
    expect(error).to.include({ code: 'not_found', status: 404 });
  });

  it('with force, takes the role from its holders and ends what it granted a live session at once', async () => {
    await editPage().expect(200);
    expect(await t.auth.roles.delete('editor', { force: true })).to.equal(1);
    const refused = await editPage().expect(403);
    expect(refused.body.code).to.equal('forbidden');
    expect([...(await t.auth.users.findByEmail('ada@example.com'))!.roles]).to.deep.equal(['viewer']);
    expect((await t.auth.roles.list()).map((role) => role.name)).to.not.include('editor');
    // The session itself goes on: only what the role granted is gone.
    await request(t.app).get('/service-auth/me').set('Cookie', editorCookie).expect(200);
  });
});
