/**
 * CONTRACT-2 §14.5 and §14.1 from the command line: `auth confirm-email` for a user who registered
 * with SERVICE_AUTH_EMAIL_CONFIRMATION on, and the account states as `auth list-users` shows them.
 */
import { expect } from 'chai';
import { rm } from 'node:fs/promises';
import request from 'supertest';
import type { PublicUser } from '../../src/users/auth-user.js';
import { createTestApp, PASSWORD, temporaryDatabase, temporaryDirectory, type TestApp } from '../helpers/app.js';
import { runBatch, runCli, type CliResult } from './cli-process.js';
import { runCliInProcess } from './in-process.js';
import { loginResponse } from './running-app.js';

describe('CLI: confirm-email, and the account states in list-users', () => {
  let database: Awaited<ReturnType<typeof temporaryDatabase>>;
  let outbox: string;
  let t: TestApp;
  const results: Record<string, CliResult> = {};
  let loginBefore: { status: number; code: unknown };
  // In this process, but for the table (a real process's output and status).
  const cli =
    (...args: string[]) =>
    (): Promise<CliResult> =>
      (args[0] === 'list-users' && args.length === 1 ? runCli : runCliInProcess)([
        'auth',
        ...args,
        '--database',
        database.url,
      ]);
  const json = (name: string): PublicUser[] => JSON.parse(results[name]!.stdout) as PublicUser[];

  before(async function () {
    this.timeout(120_000);
    database = await temporaryDatabase();
    outbox = await temporaryDirectory();
    t = await createTestApp({
      SERVICE_AUTH_DATABASE_URL: database.url,
      SERVICE_AUTH_RATE_LIMIT_ENABLED: false,
      SERVICE_AUTH_EMAIL_CONFIRMATION: true,
      SERVICE_AUTH_MAIL_OUTBOX: outbox,
    });
    // One user in each state: made by code (confirmed), registered over HTTP (unconfirmed), and
    // each of those disabled.
    await t.auth.users.create({ email: 'active@example.com', password: PASSWORD });
    await t.auth.users.create({ email: 'disabled@example.com', password: PASSWORD });
    for (const email of ['unconfirmed@example.com', 'both@example.com']) {
      await request(t.app).post('/service-auth/register').send({ email, password: PASSWORD }).expect(202);
    }
    await t.parts.background.flush();
    await t.auth.users.disable('disabled@example.com');
    await t.auth.users.disable('both@example.com');
    const refused = await loginResponse(t, 'unconfirmed@example.com');
    loginBefore = { status: refused.status, code: refused.body.code };

    Object.assign(
      results,
      await runBatch({ others: { table: cli('list-users'), jsonBefore: cli('list-users', '--json') } }),
    );
    Object.assign(
      results,
      await runBatch({
        writers: {
          confirmed: cli('confirm-email', 'Unconfirmed@Example.com'),
          again: cli('confirm-email', 'unconfirmed@example.com'),
          ofCreated: cli('confirm-email', 'active@example.com'),
          jsonAfter: cli('list-users', '--json'),
        },
      }),
    );
  });
  after(async () => {
    await t.auth.close();
    await database.remove();
    await rm(outbox, { recursive: true, force: true });
  });

  it('list-users: a Status column says active, disabled, unconfirmed, or disabled, unconfirmed', () => {
    const { code, stdout, stderr } = results['table']!;
    expect({ code, stderr }).to.deep.equal({ code: 0, stderr: '' });
    const lines = stdout.trimEnd().split('\n');
    expect(lines[0]).to.match(/^ID +Email +Status +Admin +Roles +Created$/);
    const status = lines[0]!.indexOf('Status');
    const admin = lines[0]!.indexOf('Admin');
    const statusOf = Object.fromEntries(
      lines.slice(1).map((line) => [line.split(/ +/)[1], line.slice(status, admin).trimEnd()]),
    );
    expect(statusOf).to.deep.equal({
      'active@example.com': 'active',
      'disabled@example.com': 'disabled',
      'unconfirmed@example.com': 'unconfirmed',
      'both@example.com': 'disabled, unconfirmed',
    });
  });

  it('list-users --json carries disabled, email_confirmed and mfa_enabled for every user', async () => {
    expect(results['jsonBefore']!.code, results['jsonBefore']!.stderr).to.equal(0);
    const states = json('jsonBefore').map(({ email, disabled, email_confirmed, mfa_enabled }) => ({
      email,
      disabled,
      email_confirmed,
      mfa_enabled,
    }));
    expect(states).to.deep.equal([
      { email: 'active@example.com', disabled: false, email_confirmed: true, mfa_enabled: false },
      { email: 'disabled@example.com', disabled: true, email_confirmed: true, mfa_enabled: false },
      { email: 'unconfirmed@example.com', disabled: false, email_confirmed: false, mfa_enabled: false },
      { email: 'both@example.com', disabled: true, email_confirmed: false, mfa_enabled: false },
    ]);
  });

  it('confirm-email: flips email_confirmed in list-users --json, and the user can log in at once', async () => {
    expect(loginBefore).to.deep.equal({ status: 403, code: 'email_unconfirmed' });
    expect(results['confirmed']).to.deep.equal({
      code: 0,
      stdout: 'Confirmed the email address of unconfirmed@example.com\n',
      stderr: '',
    });
    const after = json('jsonAfter');
    expect(after.find((user) => user.email === 'unconfirmed@example.com')!.email_confirmed).to.equal(true);
    // Nobody else changed.
    const others = (users: PublicUser[]) => users.filter((user) => user.email !== 'unconfirmed@example.com');
    expect(others(after)).to.deep.equal(others(json('jsonBefore')));
    await loginResponse(t, 'unconfirmed@example.com').expect(200);
  });

  it('confirm-email on a confirmed address says so and succeeds (exit 0), changing nothing', () => {
    expect(results['again']).to.deep.equal({
      code: 0,
      stdout: 'The email address of unconfirmed@example.com is already confirmed; nothing changed\n',
      stderr: '',
    });
    expect(results['ofCreated']).to.deep.equal({
      code: 0,
      stdout: 'The email address of active@example.com is already confirmed; nothing changed\n',
      stderr: '',
    });
  });
});
