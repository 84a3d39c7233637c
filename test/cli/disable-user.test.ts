/**
 * CONTRACT-2 §14.1 from the command line: `auth disable-user` and `auth enable-user` run as real
 * processes on the SQLite file a running application uses, and the application honours them.
 */
import { expect } from 'chai';
import { rm } from 'node:fs/promises';
import request from 'supertest';
import {
  createTestApp,
  outboxMails,
  PASSWORD,
  temporaryDatabase,
  temporaryDirectory,
  type TestApp,
} from '../helpers/app.js';
import { runCli, type CliResult } from './cli-process.js';
import { runCliInProcess } from './in-process.js';
import { login, loginResponse, meWithCookie, meWithToken, untilStatus } from './running-app.js';

describe('CLI: disable-user and enable-user on the SQLite file a running app uses', () => {
  let database: Awaited<ReturnType<typeof temporaryDatabase>>;
  let outbox: string;
  let t: TestApp;
  const ada = { cookie: '', token: '' };
  const bob = { cookie: '', token: '' };
  // In this process; the first disable-user in a real one.
  const cli = (...args: string[]): Promise<CliResult> =>
    (args[1] === 'Ada@Example.com' ? runCli : runCliInProcess)(['auth', ...args, '--database', database.url]);

  before(async () => {
    database = await temporaryDatabase();
    outbox = await temporaryDirectory();
    t = await createTestApp({
      SERVICE_AUTH_DATABASE_URL: database.url,
      SERVICE_AUTH_RATE_LIMIT_ENABLED: false,
      SERVICE_AUTH_MAIL_OUTBOX: outbox,
    });
    for (const [email, holder] of [
      ['ada@example.com', ada],
      ['bob@example.com', bob],
    ] as const) {
      await t.auth.users.create({ email, password: PASSWORD });
      holder.cookie = await login(t, email);
      holder.token = (await t.auth.tokens.create(email, { name: 'ci' })).token;
      // In use, so that the app holds the session, the token and the user in memory when the CLI
      // changes the file under it.
      await meWithCookie(t, holder.cookie).expect(200);
      await meWithToken(t, holder.token).expect(200);
    }
  });
  after(async () => {
    await t.auth.close();
    await database.remove();
    await rm(outbox, { recursive: true, force: true });
  });

  it("disable-user: the user's session and token are refused by a running app within a second, and nobody else's", async () => {
    expect(await cli('disable-user', 'Ada@Example.com')).to.deep.equal({
      code: 0,
      stdout:
        'Disabled ada@example.com: their sessions were ended, and their API tokens are refused until the account is enabled\n',
      stderr: '',
    });
    const [sessionCode, tokenCode] = await Promise.all([
      untilStatus(() => meWithCookie(t, ada.cookie), 401),
      untilStatus(() => meWithToken(t, ada.token), 401),
    ]);
    expect({ sessionCode, tokenCode }).to.deep.equal({ sessionCode: 'unauthenticated', tokenCode: 'invalid_token' });
    await meWithCookie(t, bob.cookie).expect(200);
    await meWithToken(t, bob.token).expect(200);
    expect((await t.auth.users.findByEmail('ada@example.com'))!.disabled).to.equal(true);
  });

  it('disable-user: login with the right password is 403 account_disabled; a wrong one stays 401 invalid_credentials', async () => {
    const right = await loginResponse(t, 'ada@example.com').expect(403);
    expect(right.body.code).to.equal('account_disabled');
    expect(right.headers['set-cookie']).to.equal(undefined);
    const wrong = await loginResponse(t, 'ada@example.com', 'Wrong-Password-123').expect(401);
    expect(wrong.body.code).to.equal('invalid_credentials');
  });

  it('disable-user: /forgot answers 202 for the disabled user and sends nothing', async () => {
    for (const email of ['ada@example.com', 'bob@example.com']) {
      await request(t.app).post('/service-auth/forgot').send({ email }).expect(202);
    }
    await t.parts.background.flush();
    expect((await outboxMails(outbox, 1)).map((mail) => mail.to)).to.deep.equal(['bob@example.com']);
  });

  it('disable-user on a disabled user says so and succeeds (exit 0), changing nothing', async () => {
    expect(await cli('disable-user', 'ada@example.com')).to.deep.equal({
      code: 0,
      stdout: 'ada@example.com is already disabled; nothing changed\n',
      stderr: '',
    });
  });

  it('enable-user: the token works again within a second; the ended session stays ended, and login works', async () => {
    expect(await cli('enable-user', 'ada@example.com')).to.deep.equal({
      code: 0,
      stdout: 'Enabled ada@example.com: their API tokens work again, and they log in again for a new session\n',
      stderr: '',
    });
    await untilStatus(() => meWithToken(t, ada.token), 200);
    await meWithCookie(t, ada.cookie).expect(401);
    await meWithCookie(t, await login(t, 'ada@example.com')).expect(200);
    expect((await t.auth.users.findByEmail('ada@example.com'))!.disabled).to.equal(false);
  });

  it('enable-user on a user who is not disabled says so and succeeds (exit 0)', async () => {
    expect(await cli('enable-user', 'bob@example.com')).to.deep.equal({
      code: 0,
      stdout: 'bob@example.com is not disabled; nothing changed\n',
      stderr: '',
    });
    await meWithToken(t, bob.token).expect(200);
  });

  it('an unknown email exits 1 with a message naming it, for every account command, and changes nothing', async () => {
    const before = (await t.auth.users.list()).map((user) => user.toJSON());
    const results = await Promise.all([
      cli('disable-user', 'Nobody@example.com'),
      cli('enable-user', 'nobody@example.com'),
      cli('confirm-email', 'nobody@example.com'),
      cli('delete-user', 'nobody@example.com', '--yes'),
      cli('delete-user', 'nobody@example.com'),
    ]);
    for (const result of results) {
      expect(result).to.deep.equal({
        code: 1,
        stdout: '',
        stderr: 'Unknown email: no user with email nobody@example.com\n',
      });
    }
    expect((await t.auth.users.list()).map((user) => user.toJSON())).to.deep.equal(before);
  });
});
