/**
 * Issue 45: a role made with `auth create-role` is given by `auth add-role`. The operator's four
 * commands, as the issue ran them, through the built binary on one SQLite file (./policies defines
 * admin, analyst and member, not reviewer); then the user logs in over HTTP holding the role.
 */
import { expect } from 'chai';
import request from 'supertest';
import { createTestApp, PASSWORD, temporaryDatabase } from '../helpers/app.js';
import { runCli, type CliResult } from './cli-process.js';

describe('CLI: a role made with create-role is given by add-role (issue 45)', () => {
  let database: Awaited<ReturnType<typeof temporaryDatabase>>;
  const cli = (...args: string[]): Promise<CliResult> => runCli(['auth', ...args, '--database', database.url]);

  before(async () => {
    database = await temporaryDatabase();
    const t = await createTestApp({ SERVICE_AUTH_DATABASE_URL: database.url });
    try {
      await t.auth.users.create({ email: 'ada@example.com', password: PASSWORD });
    } finally {
      await t.auth.close();
    }
  });
  after(async () => {
    await database.remove();
  });

  it('creates, lists and gives the role (exit 0, a note on stderr), and the user logs in with it', async () => {
    const created = await cli('create-role', 'reviewer');
    expect(created).to.deep.equal({ code: 0, stdout: 'Created role "reviewer"\n', stderr: '' });
    const listed = await cli('list-roles');
    expect(listed.code, listed.stderr).to.equal(0);
    expect(listed.stdout).to.match(/^reviewer +\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/m);
    const given = await cli('add-role', 'ada@example.com', 'reviewer');
    expect(given).to.deep.equal({
      code: 0,
      stdout: 'Gave the role "reviewer" to ada@example.com (id 1; roles: reviewer)\n',
      stderr:
        'No definition gives the role "reviewer" rules yet: it grants nothing until one does (auth.defineRole, or ./policies)\n',
    });

    const t = await createTestApp({ SERVICE_AUTH_DATABASE_URL: database.url, SERVICE_AUTH_RATE_LIMIT_ENABLED: false });
    try {
      const login = await request(t.app)
        .post('/service-auth/login')
        .send({ email: 'ada@example.com', password: PASSWORD })
        .expect(200);
      expect(login.body.user.roles).to.deep.equal(['reviewer']);
    } finally {
      await t.auth.close();
    }
  });

  it('still refuses a mistyped name, naming the role meant, and gives nothing', async () => {
    const typo = await cli('add-role', 'ada@example.com', 'reviewr');
    expect(typo).to.include({ code: 1, stdout: '' });
    expect(typo.stderr).to.equal(
      'No role is named "reviewr": no definition names it and it was never created (the defined roles are admin, analyst, member; ' +
        'did you mean "reviewer"?). Create it with create-role, or give it anyway with --force\n',
    );
    const listed = await cli('list-roles', '--json');
    expect((JSON.parse(listed.stdout) as { name: string }[]).map((role) => role.name)).to.deep.equal(['reviewer']);
  });
});
