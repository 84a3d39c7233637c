/**
 * Sign-in through an identity provider (docs/sso.md), against a real OpenID provider on 127.0.0.1
 * (test/helpers/oidc-provider.ts) and the real app, over HTTP: a browser's trip followed by hand.
 * Every refusal is 400 `sso_failed` with its reason and leaves nobody signed in; an address alone
 * never joins an account; a second factor is still asked unless the provider is trusted for it.
 */
import { expect } from 'chai';
import request from 'supertest';
import { totpCode } from '../../src/mfa/totp.js';
import { PASSWORD } from '../helpers/app.js';
import { Browser, PREFIX, ssoFixture, type SsoFixture } from './sso-fixture.js';

describe('sign-in through an identity provider', () => {
  let f: SsoFixture;
  let accounts = 0;
  const events: string[] = [];
  /** A new person at the provider, signed in there at the next authorization. */
  const person = (options: { email?: string; verified?: boolean; amr?: string[] } = {}) => {
    const sub = `person-${++accounts}`;
    const email = options.email ?? `${sub}@example.com`;
    f.provider.accounts.set(sub, { sub, email, email_verified: options.verified ?? true, name: `Person ${accounts}` });
    f.provider.signInAs = { sub, amr: options.amr ?? ['pwd'] };
    return { sub, email };
  };
  const refused = async (response: request.Test | Promise<request.Response>, reason: string, browser: Browser) => {
    const answer = await response;
    expect(answer.status, JSON.stringify(answer.body)).to.equal(400);
    expect(answer.body).to.include({ code: 'sso_failed', reason });
    expect(answer.headers['set-cookie'] ?? []).to.not.satisfy((cookies: string[]) =>
      cookies.some((c) => c.startsWith('service_auth_session=') && !/Expires=Thu, 01 Jan 1970/.test(c)),
    );
    expect(await browser.me()).to.equal(null);
  };

  before(async () => {
    f = await ssoFixture();
    for (const name of ['user_registered', 'user_login', 'identity_linked', 'identity_unlinked'] as const)
      f.t.auth.on(name, (user) => void events.push(`${name} ${user.email}`));
  });
  after(() => f.close());
  beforeEach(() => {
    events.length = 0;
  });

  it('registers a verified new address (confirmed, default roles), signs it in and goes to `next`; the identity signs the same user in again, with a new session', async () => {
    const { email } = person();
    const browser = new Browser(f);
    const first = await browser.signIn('acme', { query: `?next=${encodeURIComponent('/projects?tab=1')}` });
    expect(first.status).to.equal(303);
    expect(first.headers['location']).to.equal('/projects?tab=1');
    expect(await browser.me()).to.equal(email);
    const user = (await f.t.auth.users.findByEmail(email))!;
    expect([...user.roles]).to.deep.equal(['member']);
    expect(user.email_confirmed).to.equal(true);
    expect(events).to.deep.equal([`user_registered ${email}`, `user_login ${email}`]);
    const firstCookie = String(first.headers['set-cookie']).match(/service_auth_session=([^;]+)/)![1];

    f.provider.signInAs = { sub: `person-${accounts}` };
    const again = await browser.signIn('acme');
    expect(again.status).to.equal(303);
    expect(again.headers['location']).to.equal('/');
    expect(String(again.headers['set-cookie']).match(/service_auth_session=([^;]+)/)![1]).to.not.equal(firstCookie);
    expect(await browser.me()).to.equal(email);
    const logins = await f.t.auth.audit.query({ userId: user.id, type: 'login' });
    expect(logins.map((r) => r.detail['provider'])).to.deep.equal(['acme', 'acme']);
  });

  it('ignores a `next` that is not a same-site path (no open redirect)', async () => {
    person();
    const answer = await new Browser(f).signIn('acme', { query: `?next=${encodeURIComponent('//evil.example/x')}` });
    expect(answer.status).to.equal(303);
    expect(answer.headers['location']).to.equal('/');
  });

  it('refuses a replayed answer, even with the cookie of the browser that started it (state)', async () => {
    person();
    const browser = new Browser(f);
    const started = await browser.agent.get(`${PREFIX}/sso/acme`).expect(303);
    const cookie = String(started.headers['set-cookie']).split(';')[0]!;
    const back = await browser.atProvider(started.headers['location'] as string);
    const path = back.pathname + back.search;
    await request(f.t.app).get(path).set('Cookie', cookie).set('Accept', 'application/json').expect(303);
    await refused(request(f.t.app).get(path).set('Cookie', cookie).set('Accept', 'application/json'), 'state', browser);
  });

  it('refuses an answer carried to another browser, and a tampered state (state)', async () => {
    person();
    const browser = new Browser(f);
    const back = await browser.atProvider(await browser.start());
    await refused(new Browser(f).callback(back), 'state', browser);
    person();
    const second = await browser.atProvider(await browser.start());
    second.searchParams.set('state', `${second.searchParams.get('state')}x`);
    await refused(browser.callback(second), 'state', browser);
  });

  it('refuses an ID token made for another sign-in (nonce)', async () => {
    person();
    const browser = new Browser(f);
    await refused(
      browser.signIn('acme', { rewrite: (url) => url.searchParams.set('nonce', 'another-sign-in') }),
      'nonce',
      browser,
    );
  });

  it('refuses an ID token from another issuer, for another audience, or whose signature does not verify', async () => {
    const browser = new Browser(f);
    for (const [change, reason] of [
      [{ iss: 'http://127.0.0.1:9/other' }, 'issuer'],
      [{ aud: 'someone-else' }, 'audience'],
      ['signature', 'signature'],
    ] as const) {
      person();
      f.provider.tamperNextIdToken(change);
      await refused(browser.signIn(), reason, browser);
    }
  });

  it('refuses when the person says no at the provider (provider_error), with a page that says so to a browser', async () => {
    f.provider.signInAs = 'deny';
    const browser = new Browser(f);
    await refused(browser.signIn(), 'provider_error', browser);
    f.provider.signInAs = 'deny';
    const page = await browser.signIn('acme', { accept: 'html' });
    expect(page.status).to.equal(400);
    expect(page.text).to.contain('did not sign you in').and.contain('(provider_error)');
  });

  it('makes no account for an address the provider has not verified (email_unverified)', async () => {
    const { email } = person({ verified: false });
    const browser = new Browser(f);
    await refused(browser.signIn(), 'email_unverified', browser);
    expect(await f.t.auth.users.findByEmail(email)).to.equal(null);
  });

  it('never joins an existing password account by its address (not_linked), and says to link it from the account page', async () => {
    const email = 'holder@example.com';
    await f.t.auth.users.create({ email, password: PASSWORD });
    person({ email });
    const browser = new Browser(f);
    await refused(browser.signIn(), 'not_linked', browser);
    person({ email });
    const page = await browser.signIn('acme', { accept: 'html' });
    expect(page.status).to.equal(400);
    expect(page.text).to.contain('sign in with your password, then link the provider from your account page');
    const user = (await f.t.auth.users.findByEmail(email))!;
    const identities = await f.t.parts.sso.identities.list(user.id);
    expect(identities).to.deep.equal([]);
  });

  it('links from a signed-in session, then signs that account in; asks its second factor after the provider (a ticket) unless a trusted provider did MFA', async () => {
    const email = 'linker@example.com';
    await f.t.auth.users.create({ email, password: PASSWORD });
    const browser = new Browser(f);
    await browser.agent.post(`${PREFIX}/login`).send({ email, password: PASSWORD }).expect(200);
    const { secret } = (await browser.agent.post(`${PREFIX}/api/mfa/totp`).expect(200)).body;
    await browser.agent
      .post(`${PREFIX}/api/mfa/totp/confirm`)
      .send({ code: totpCode(secret, Date.now()) })
      .expect(200);

    const { sub } = person({ email: 'at-provider@example.com' });
    events.length = 0;
    const linked = await browser.signIn('acme', { query: '?link=1' });
    expect(linked.status).to.equal(303);
    expect(linked.headers['location']).to.equal(`${PREFIX}/identities?linked=1`);
    expect(events).to.deep.equal([`identity_linked ${email}`]);
    const list = (await browser.agent.get(`${PREFIX}/api/identities`).expect(200)).body.identities;
    expect(list).to.have.length(1);
    expect(list[0]).to.include({ provider: 'acme', subject: sub, email: 'at-provider@example.com' });

    const fresh = new Browser(f);
    f.provider.signInAs = { sub, amr: ['pwd'] };
    const step = await fresh.signIn();
    expect(step.status).to.equal(401);
    expect(step.body.code).to.equal('mfa_required');
    expect(await fresh.me()).to.equal(null);
    await fresh.agent
      .post(`${PREFIX}/login/mfa`)
      .send({ ticket: step.body.ticket, code: totpCode(secret, Date.now() + 30_000) })
      .expect(200);
    expect(await fresh.me()).to.equal(email);

    // The trusting provider (its own client) is a different identity: link it too, then its MFA counts.
    const trusted = person({ email: 'at-provider@example.com', amr: ['pwd', 'otp'] });
    expect((await browser.signIn('acme-mfa', { query: '?link=1' })).status).to.equal(303);
    f.provider.signInAs = { sub: trusted.sub, amr: ['pwd', 'otp'] };
    const direct = new Browser(f);
    expect((await direct.signIn('acme-mfa')).status).to.equal(303);
    expect(await direct.me()).to.equal(email);
    f.provider.signInAs = { sub: trusted.sub, amr: ['pwd'] };
    expect((await new Browser(f).signIn('acme-mfa')).body.code).to.equal('mfa_required');
  });

  it('unlinks an identity, but not the only way into an account made through a provider (409 last_sign_in_method)', async () => {
    const { email } = person();
    const browser = new Browser(f);
    expect((await browser.signIn()).status).to.equal(303);
    const [only] = (await browser.agent.get(`${PREFIX}/api/identities`).expect(200)).body.identities;
    expect((await browser.agent.delete(`${PREFIX}/api/identities/${only.id}`).expect(409)).body.code).to.equal(
      'last_sign_in_method',
    );
    // The same person's second provider (another client, another subject): now either may go.
    person({ email });
    expect((await browser.signIn('acme-mfa', { query: '?link=1' })).status).to.equal(303);
    await browser.agent.delete(`${PREFIX}/api/identities/${only.id}`).expect(204);
    expect(events).to.include(`identity_unlinked ${email}`);
    const left = (await browser.agent.get(`${PREFIX}/api/identities`).expect(200)).body.identities;
    expect(left.map((i: { provider: string }) => i.provider)).to.deep.equal(['acme-mfa']);
    expect((await browser.agent.delete(`${PREFIX}/api/identities/${left[0].id}`).expect(409)).body.code).to.equal(
      'last_sign_in_method',
    );
    await new Browser(f).agent.delete(`${PREFIX}/api/identities/${left[0].id}`).expect(401);
    const user = (await f.t.auth.users.findByEmail(email))!;
    const unlinked = await f.t.auth.audit.query({ userId: user.id, type: 'identity_unlinked' });
    expect(unlinked.map((r) => r.detail['provider'])).to.deep.equal(['acme']);
  });

  it("signs in through a plain OAuth 2 provider: its endpoints, the user-info read with the access token, the application's profile mapping", async () => {
    const issuer = f.provider.issuer;
    f.t.auth.addIdentityProvider({
      id: 'plain',
      name: 'Plain',
      endpoints: { authorization: `${issuer}/auth`, token: `${issuer}/token`, userinfo: `${issuer}/me` },
      clientId: 'app',
      clientSecret: 'app-secret',
      scopes: ['openid', 'email'],
      profile: (raw) => ({
        subject: `mapped-${String(raw['sub'])}`,
        email: String(raw['email']),
        emailVerified: raw['email_verified'] === true,
      }),
    });
    const { sub, email } = person();
    const browser = new Browser(f);
    expect((await browser.signIn('plain')).status).to.equal(303);
    expect(await browser.me()).to.equal(email);
    const [identity] = (await browser.agent.get(`${PREFIX}/api/identities`).expect(200)).body.identities;
    expect(identity).to.include({ provider: 'plain', subject: `mapped-${sub}`, email });
  });

  it('sends a browser without a session that asks to link to the login page, and an unknown provider to a 404', async () => {
    const link = await request(f.t.app).get(`${PREFIX}/sso/acme?link=1`).set('Accept', 'text/html').expect(303);
    expect(link.headers['location']).to.match(new RegExp(`^${PREFIX}/login\\?next=`));
    await request(f.t.app).get(`${PREFIX}/sso/nobody`).set('Accept', 'application/json').expect(404);
  });

  it('shows a button per provider on the login page, and the linked providers on the account page', async () => {
    const login = await request(f.t.app).get(`${PREFIX}/login?next=/x`).set('Accept', 'text/html').expect(200);
    expect(login.text)
      .to.contain(`href="${PREFIX}/sso/acme?next=%2Fx"`)
      .and.contain('Sign in with Acme')
      .and.contain('Sign in with acme-mfa');
    person();
    const browser = new Browser(f);
    await browser.signIn();
    const page = await browser.agent.get(`${PREFIX}/identities`).set('Accept', 'text/html').expect(200);
    expect(page.text).to.contain('Unlink Acme').and.contain(`href="${PREFIX}/sso/acme-mfa?link=1"`);
  });
});
