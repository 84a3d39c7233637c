/**
 * The second factor for people with browsers (the `/mfa` page, the login's second step, as forms)
 * and for operators (`auth reset-mfa`, the real binary on the file a running app uses).
 */
import { expect } from 'chai';
import request from 'supertest';
import { totpCode } from '../../src/mfa/totp.js';
import { Passkey } from '../../src/storage/entities/index.js';
import { runCli } from '../cli/cli-process.js';
import { runCliInProcess } from '../cli/in-process.js';
import { createTestApp, PASSWORD, sessionCookieFrom, temporaryDatabase, type TestApp } from '../helpers/app.js';
import { formPost, pageGet } from '../helpers/forms.js';
import { meWithCookie, untilStatus } from '../cli/running-app.js';

/** The key the page shows beside the QR code. */
const keyOf = (html: string) => /<code class="secret">([A-Z2-7]+)<\/code>/.exec(html)![1]!;
const ticketOf = (html: string) => /name="ticket" value="([^"]+)"/.exec(html)![1]!;

describe('§15.1 the second factor’s pages', () => {
  let t: TestApp;
  let cookie: string;
  beforeEach(async () => {
    t = await createTestApp({ SERVICE_AUTH_RATE_LIMIT_ENABLED: false });
    await t.auth.users.create({ email: 'ada@example.com', password: PASSWORD });
    cookie = sessionCookieFrom(
      await formPost(t.app, '/login', { email: 'ada@example.com', password: PASSWORD }).expect(303),
    )!;
  });
  afterEach(() => t.auth.close());
  const as = (test: request.Test) => test.set('Cookie', cookie);

  it('sets up an app from /mfa: the QR code and key, a wrong code shown again with the same key, then the recovery codes once', async () => {
    const off = await as(pageGet(t.app, '/mfa')).expect(200);
    expect(off.text).to.contain('Set up an authenticator app');
    const setup = await as(formPost(t.app, '/mfa/totp', {})).expect(200);
    expect(setup.text).to.match(/<figure class="qr"><svg xmlns="http:\/\/www\.w3\.org\/2000\/svg"/);
    const key = keyOf(setup.text);
    const wrong = await as(formPost(t.app, '/mfa/totp/confirm', { code: '000000' })).expect(401);
    expect(wrong.text).to.contain('That code is not right');
    expect(keyOf(wrong.text), 'the same key: the app’s entry still fits').to.equal(key);
    const on = await as(formPost(t.app, '/mfa/totp/confirm', { code: totpCode(key, Date.now()) })).expect(200);
    const codes = [...on.text.matchAll(/<li><code>([a-z2-7-]{19})<\/code><\/li>/g)].map((match) => match[1]);
    expect(codes).to.have.length(10);
    const after = await as(pageGet(t.app, '/mfa')).expect(200);
    expect(after.text).to.contain('10 recovery codes left');
    expect(after.text).not.to.contain(codes[0]!);
  });

  it('asks for the code after the password, keeps the ticket through a wrong code, and accepts a recovery code', async () => {
    const setup = await as(formPost(t.app, '/mfa/totp', {})).expect(200);
    const key = keyOf(setup.text);
    const on = await as(formPost(t.app, '/mfa/totp/confirm', { code: totpCode(key, Date.now()) })).expect(200);
    const recovery = /<li><code>([a-z2-7-]{19})<\/code><\/li>/.exec(on.text)![1]!;

    const step = await formPost(t.app, '/login', {
      email: 'ada@example.com',
      password: PASSWORD,
      next: '/after',
    }).expect(200);
    expect(step.text).to.contain('Enter your code');
    expect(step.headers['set-cookie'] ?? []).to.deep.equal([]);
    const ticket = ticketOf(step.text);
    const wrong = await formPost(t.app, '/login/mfa', { ticket, next: '/after', code: '000000' }).expect(401);
    expect(ticketOf(wrong.text)).to.equal(ticket);
    expect(wrong.text).to.contain('That code is not right');
    const done = await formPost(t.app, '/login/mfa', {
      ticket,
      next: '/after',
      code: totpCode(key, Date.now() + 30_000),
    }).expect(303);
    expect(done.headers['location']).to.equal('/after');
    expect(sessionCookieFrom(done)).to.be.a('string');

    const again = ticketOf(
      (await formPost(t.app, '/login', { email: 'ada@example.com', password: PASSWORD }).expect(200)).text,
    );
    await formPost(t.app, '/login/mfa', { ticket: again, recovery_code: recovery }).expect(303);
    const used = ticketOf(
      (await formPost(t.app, '/login', { email: 'ada@example.com', password: PASSWORD }).expect(200)).text,
    );
    const refused = await formPost(t.app, '/login/mfa', { ticket: used, recovery_code: recovery }).expect(401);
    expect(refused.text).to.match(/<details open>/);
    const expired = await formPost(t.app, '/login/mfa', { ticket: 'not-a-ticket', code: '123456' }).expect(303);
    expect(expired.headers['location']).to.equal('/service-auth/login?mfa=expired');
  });

  it('removes the app with the password', async () => {
    const key = keyOf((await as(formPost(t.app, '/mfa/totp', {})).expect(200)).text);
    await as(formPost(t.app, '/mfa/totp/confirm', { code: totpCode(key, Date.now()) })).expect(200);
    const wrong = await as(formPost(t.app, '/mfa/totp/remove', { password: 'Wrong-Guess-Battery-6' })).expect(401);
    expect(wrong.text).to.contain('autocomplete="current-password"');
    const removed = await as(formPost(t.app, '/mfa/totp/remove', { password: PASSWORD })).expect(303);
    expect(removed.headers['location']).to.equal('/service-auth/mfa?removed=1');
    await formPost(t.app, '/login', { email: 'ada@example.com', password: PASSWORD }).expect(303);
  });
});

describe('CLI: reset-mfa', () => {
  it('removes the app, the recovery codes and the passkeys of a user who lost them, and ends their sessions, recorded with the actor cli; a user without any is left as is', async () => {
    const database = await temporaryDatabase();
    const t = await createTestApp({ SERVICE_AUTH_DATABASE_URL: database.url, SERVICE_AUTH_RATE_LIMIT_ENABLED: false });
    try {
      const ada = await t.auth.users.create({ email: 'ada@example.com', password: PASSWORD });
      // A session opened before: by a stolen device, say.
      const earlier = sessionCookieFrom(
        await request(t.app)
          .post('/service-auth/login')
          .send({ email: 'ada@example.com', password: PASSWORD })
          .expect(200),
      )!;
      const setup = await t.parts.secondFactors.beginTotp(ada);
      await t.parts.secondFactors.confirmTotp(ada.id, totpCode(setup.secret, Date.now()));
      // A passkey as the browser test registers one (only its row matters here).
      const passkeys = () => t.parts.storage.em().then((em) => em.fork().count(Passkey, { user: ada.id }));
      await (await t.parts.storage.em()).fork().insert(Passkey, {
        credentialId: 'cred-1',
        user: ada.id,
        name: 'Phone',
        publicKey: 'AA',
        counter: 0,
        transports: '',
        createdAt: new Date(),
        lastUsedAt: null,
      });
      await request(t.app)
        .post('/service-auth/login')
        .send({ email: 'ada@example.com', password: PASSWORD })
        .expect(401);
      const reset = await runCli(['auth', 'reset-mfa', 'ada@example.com', '--database', database.url]);
      expect(reset).to.include({ code: 0, stderr: '' });
      expect(reset.stdout).to.contain(
        'Removed the authenticator app and recovery codes and 1 passkey of ada@example.com, and ended their sessions',
      );
      await untilStatus(() => meWithCookie(t, earlier), 401);
      await request(t.app)
        .post('/service-auth/login')
        .send({ email: 'ada@example.com', password: PASSWORD })
        .expect(200);
      expect(await passkeys()).to.equal(0);
      const records = await t.auth.audit.query({ type: 'mfa_disabled' });
      expect(records.map((record) => [record.detail['factor'], record.detail['actor']])).to.have.deep.members([
        ['totp', 'cli'],
        ['passkey', 'cli'],
      ]);
      const again = await runCliInProcess(['auth', 'reset-mfa', 'ada@example.com', '--database', database.url]);
      expect(again).to.include({ code: 0 });
      expect(again.stdout).to.contain('has no second factor; nothing changed');
      expect(
        (await runCliInProcess(['auth', 'reset-mfa', 'nobody@example.com', '--database', database.url])).code,
      ).to.equal(1);
    } finally {
      await t.auth.close();
      await database.remove();
    }
  });
});
