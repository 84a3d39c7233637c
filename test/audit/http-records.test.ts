/**
 * The audit log as HTTP fills it (CONTRACT-2 §17): who, from where, and what; nothing secret, ever;
 * a flood of refusals writes a handful of rows; and handlers get each record after it commits.
 */
import { expect } from 'chai';
import request from 'supertest';
import { sha256Hex } from '../../src/secrets.js';
import { AuditEvent } from '../../src/storage/entities/index.js';
import type { AuditRecord } from '../../src/index.js';
import {
  createTestApp,
  outboxMails,
  PASSWORD,
  resetTokenFrom,
  sessionCookieFrom,
  temporaryDirectory,
  type TestApp,
} from '../helpers/app.js';
import { rm } from 'node:fs/promises';

const UA = 'Mozilla/5.0 (audit test)';
const linkToken = (mail: { text: string }, path: string) => {
  const match = new RegExp(`/service-auth/${path}\\?token=([A-Za-z0-9_-]{43})`).exec(mail.text);
  if (!match) throw new Error(`no ${path} link in: ${mail.text}`);
  return match[1]!;
};

async function allRows(t: TestApp): Promise<AuditEvent[]> {
  await t.auth.audit.flush();
  return (await t.parts.storage.em()).fork().find(AuditEvent, {}, { orderBy: { id: 'asc' } });
}

describe('the audit log, over HTTP', () => {
  let t: TestApp;
  let outbox: string;
  afterEach(async () => {
    await t.auth.close();
    if (outbox) await rm(outbox, { recursive: true, force: true });
  });

  it('records every flow with the client and the actor http, and never a password, token, cookie or link code', async () => {
    outbox = await temporaryDirectory();
    t = await createTestApp({
      SERVICE_AUTH_RATE_LIMIT_ENABLED: false,
      SERVICE_AUTH_MAIL_OUTBOX: outbox,
      SERVICE_AUTH_EMAIL_CONFIRMATION: true,
      SERVICE_AUTH_PUBLIC_URL: 'http://127.0.0.1',
    });
    const secrets: string[] = [];
    const keep = (...values: string[]) => (secrets.push(...values), values[0]!);
    const http = () => request(t.app);
    const passwords = [PASSWORD, 'Second-Horse-Battery-8', 'Third-Horse-Battery-7', 'Wrong-Guess-Battery-6'];
    keep(...passwords);
    const session = (response: { headers: Record<string, unknown> }) => {
      const cookie = sessionCookieFrom(response)!;
      keep(cookie.split('=')[1]!, sha256Hex(cookie.split('=')[1]!));
      return cookie;
    };

    // Registration, confirmed from the mail; wrong and unknown logins; a login.
    await http()
      .post('/service-auth/register')
      .set('User-Agent', UA)
      .send({ email: 'Ada@Example.com', password: passwords[0] })
      .expect(202);
    const confirm = keep(linkToken((await outboxMails(outbox, 1))[0]!, 'confirm'));
    await http().post('/service-auth/confirm').send({ token: confirm }).expect(200);
    await http()
      .post('/service-auth/login')
      .set('User-Agent', UA)
      .send({ email: 'ada@example.com', password: passwords[3] })
      .expect(401);
    await http()
      .post('/service-auth/login')
      .set('User-Agent', UA)
      .send({ email: 'nobody@example.com', password: passwords[3] })
      .expect(401);
    let cookie = session(
      await http()
        .post('/service-auth/login')
        .set('User-Agent', UA)
        .send({ email: 'ada@example.com', password: passwords[0] })
        .expect(200),
    );
    // A token made and revoked; a second device's session ended from the first.
    const created = (
      await http().post('/service-auth/api/tokens').set('Cookie', cookie).send({ name: 'laptop' }).expect(201)
    ).body;
    keep(created.token, created.token.split('_').pop());
    await http().delete(`/service-auth/api/tokens/${created.id}`).set('Cookie', cookie).expect(204);
    const other = session(
      await http()
        .post('/service-auth/login')
        .set('User-Agent', 'curl/8')
        .send({ email: 'ada@example.com', password: passwords[0] })
        .expect(200),
    );
    const { sessions } = (await http().get('/service-auth/api/sessions').set('Cookie', other).expect(200)).body;
    const otherId = sessions.find((s: { current: boolean }) => s.current).id;
    await http().delete(`/service-auth/api/sessions/${otherId}`).set('Cookie', cookie).expect(204);
    // The password changed, then reset from a mailed link.
    cookie = session(
      await http()
        .post('/service-auth/password')
        .set('Cookie', cookie)
        .send({ current_password: passwords[0], password: passwords[1] })
        .expect(200),
    );
    await http().post('/service-auth/forgot').send({ email: 'ada@example.com' }).expect(202);
    const reset = keep(resetTokenFrom((await outboxMails(outbox, 2)).find((mail) => /reset\?token=/.test(mail.text))!));
    await http().post('/service-auth/reset').send({ token: reset, password: passwords[2] }).expect(200);
    await http().post('/service-auth/reset').send({ token: reset, password: passwords[2] }).expect(400);
    // The address changed from a link to the new one; a logout; the account deleted.
    cookie = session(
      await http()
        .post('/service-auth/login')
        .set('User-Agent', UA)
        .send({ email: 'ada@example.com', password: passwords[2] })
        .expect(200),
    );
    await http()
      .post('/service-auth/email')
      .set('Cookie', cookie)
      .send({ password: passwords[2], email: 'ada.new@example.com' })
      .expect(202);
    const change = keep(
      linkToken(
        (await outboxMails(outbox, 5)).find((mail) => mail.to === 'ada.new@example.com')!,
        'confirm-email',
      ),
    );
    await http().post('/service-auth/confirm-email').send({ token: change }).expect(200);
    await http().post('/service-auth/logout').set('Cookie', cookie).expect(204);
    cookie = session(
      await http()
        .post('/service-auth/login')
        .set('User-Agent', UA)
        .send({ email: 'ada.new@example.com', password: passwords[2] })
        .expect(200),
    );
    await http().delete('/service-auth/me').set('Cookie', cookie).send({ password: passwords[2] }).expect(204);
    // Refused: another site's login, whatever it carried.
    await http()
      .post('/service-auth/login')
      .set('Sec-Fetch-Site', 'cross-site')
      .send({ email: 'ada.new@example.com', password: passwords[2] })
      .expect(403);

    const rows = await allRows(t);
    // Changes in the order they committed; failures in the batches written after them.
    const successes = rows.filter((row) => row.outcome === 'success').map((row) => row.type);
    expect(successes).to.deep.equal([
      'user_registered',
      'email_confirmed',
      'login',
      'token_created',
      'token_revoked',
      'login',
      'session_revoked',
      'password_changed',
      'password_reset_requested',
      'password_reset_completed',
      'login',
      'email_changed',
      'logout',
      'login',
      'user_deleted',
    ]);
    const failures = rows.filter((row) => row.outcome === 'failure').map((row) => `${row.type} ${row.reason}`);
    expect(failures.sort()).to.deep.equal([
      'csrf_rejected csrf_rejected',
      'login invalid_credentials',
      'login invalid_credentials',
      'password_reset_completed invalid_reset_token',
    ]);
    const login = rows.find((row) => row.type === 'login' && row.outcome === 'success')!;
    expect(login).to.include({ email: 'ada@example.com', ip: '127.0.0.1', userAgent: UA });
    expect(JSON.parse(login.detail)).to.have.keys('actor', 'session');
    expect(JSON.parse(login.detail).actor).to.equal('http');
    expect(
      rows.find((row) => row.email === 'nobody@example.com'),
      'an unknown address is recorded too',
    ).to.include({ userId: null, reason: 'invalid_credentials' });
    expect(await t.auth.audit.verify()).to.include({ intact: true });

    // The whole table, every column, as text: none of what was secret is in it.
    const table = JSON.stringify(
      await (await t.parts.storage.em()).fork().getConnection().execute('select * from auth_events'),
    );
    expect(secrets.length).to.be.greaterThan(12);
    for (const secret of secrets)
      expect(table.includes(secret), `a secret of ${secret.length} characters is in auth_events`).to.equal(false);
  });

  it('writes a handful of rows for a flood of refused logins, cross-site forms and bad bearer tokens', async () => {
    t = await createTestApp({}, (app, auth) => app.get('/private', auth.tokenRequired, (_req, res) => void res.end()));
    const login = () =>
      request(t.app).post('/service-auth/login').send({ email: 'ada@example.com', password: 'Wrong-Guess-Battery-6' });
    for (let i = 0; i < 30; i++) await login();
    for (let i = 0; i < 20; i++)
      await request(t.app)
        .post('/service-auth/register')
        .set('Sec-Fetch-Site', 'cross-site')
        .send({ email: `x${i}@example.com`, password: PASSWORD });
    for (let i = 0; i < 40; i++)
      await request(t.app)
        .get('/private')
        .set('Authorization', `Bearer sat_${'x'.repeat(40)}${i}`);
    const rows = (await allRows(t)).map((row) => `${row.type} ${JSON.parse(row.detail).endpoint ?? row.reason}`);
    expect(rows.sort()).to.deep.equal([
      'csrf_rejected POST /service-auth/register',
      // The per-account failure limit (5 a minute) stops the password checks; each was recorded.
      ...Array(5).fill('login invalid_credentials'),
      'rate_limited GET /private',
      'rate_limited POST /service-auth/login',
      'rate_limited POST /service-auth/register',
    ]);
  });

  it('hands each record to auth.on("audit") once committed; a failing handler changes nothing', async () => {
    t = await createTestApp({ SERVICE_AUTH_RATE_LIMIT_ENABLED: false });
    const seen: AuditRecord[] = [];
    t.auth.on('audit', () => {
      throw new Error('a handler that fails');
    });
    t.auth.on('audit', (record) => void seen.push(record));
    const user = await t.auth.users.create({ email: 'ada@example.com', password: PASSWORD });
    await request(t.app).post('/service-auth/login').send({ email: 'ada@example.com', password: PASSWORD }).expect(200);
    await request(t.app)
      .post('/service-auth/login')
      .send({ email: 'ada@example.com', password: 'Wrong-Guess-Battery-6' })
      .expect(401);
    await t.auth.audit.flush();
    expect(seen.map((record) => [record.type, record.outcome, record.detail['actor']])).to.deep.equal([
      ['user_created', 'success', 'api'],
      ['login', 'success', 'http'],
      ['login', 'failure', 'http'],
    ]);
    expect(seen.map((record) => record.id)).to.deep.equal([1, 2, 3]);
    expect(seen[1]).to.include({ userId: user.id, email: 'ada@example.com' });
    expect(await t.auth.audit.query({ limit: 10 })).to.deep.equal([...seen].reverse());
    expect(t.log.text()).to.contain('an audit handler failed (record 1)');
  });

  it('records nothing with SERVICE_AUTH_AUDIT_ENABLED false', async () => {
    t = await createTestApp({ SERVICE_AUTH_RATE_LIMIT_ENABLED: false, SERVICE_AUTH_AUDIT_ENABLED: false });
    await t.auth.users.create({ email: 'ada@example.com', password: PASSWORD });
    await request(t.app)
      .post('/service-auth/login')
      .send({ email: 'ada@example.com', password: 'Wrong-Guess-Battery-6' })
      .expect(401);
    expect(await allRows(t)).to.deep.equal([]);
  });
});
