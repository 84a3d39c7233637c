/**
 * The refusals that keep identities and accounts as they were (docs/sso.md, "The linking rules"),
 * against the real OpenID provider and app over HTTP, with registration through providers off:
 * an identity no account knows makes no account (400 `sso_failed`, reason `not_linked`), and an
 * identity linked to one account is not linked to another (409 `identity_in_use`).
 */
import { expect } from 'chai';
import { PASSWORD } from '../helpers/app.js';
import { Browser, PREFIX, ssoFixture, type SsoFixture } from './sso-fixture.js';

describe('sign-in through an identity provider: refusals that change nothing', () => {
  let f: SsoFixture;
  let accounts = 0;
  const events: string[] = [];
  /** A new person at the provider, signed in there at the next authorization. */
  const person = (email?: string) => {
    const sub = `linked-person-${++accounts}`;
    const account = { sub, email: email ?? `${sub}@example.com`, email_verified: true, name: `Person ${accounts}` };
    f.provider.accounts.set(sub, account);
    f.provider.signInAs = { sub, amr: ['pwd'] };
    return account;
  };
  /** A password account, signed in on a browser of its own. */
  const signedIn = async (email: string) => {
    const user = await f.t.auth.users.create({ email, password: PASSWORD });
    const browser = new Browser(f);
    await browser.agent.post(`${PREFIX}/login`).send({ email, password: PASSWORD }).expect(200);
    return { user, browser };
  };

  before(async () => {
    f = await ssoFixture({ SERVICE_AUTH_SSO_REGISTRATION: false });
    for (const name of ['user_registered', 'user_login', 'identity_linked'] as const)
      f.t.auth.on(name, (user) => void events.push(`${name} ${user.email}`));
  });
  after(() => f.close());
  beforeEach(() => {
    events.length = 0;
  });

  it('with registration off, refuses an identity linked to no account whose address no account has (not_linked), makes no user, and says so on the page', async () => {
    const { email } = person();
    const before = (await f.t.auth.users.list()).length;
    const browser = new Browser(f);
    const answer = await browser.signIn();
    expect(answer.status, JSON.stringify(answer.body)).to.equal(400);
    expect(answer.body).to.include({ code: 'sso_failed', reason: 'not_linked' });
    expect(String(answer.headers['set-cookie'] ?? '')).to.not.match(/service_auth_session=[^;]/);
    expect(await browser.me()).to.equal(null);

    person(email);
    const page = await browser.signIn('acme', { accept: 'html' });
    expect(page.status).to.equal(400);
    expect(page.text).to.contain('No account here is linked to this sign-in').and.contain('(not_linked)');
    expect(await browser.me()).to.equal(null);

    expect(await f.t.auth.users.findByEmail(email)).to.equal(null);
    expect(await f.t.auth.users.list()).to.have.length(before);
    expect(events).to.deep.equal([]);
    await f.t.auth.audit.flush();
    const failed = await f.t.auth.audit.query({ type: 'login' });
    expect(failed.map((r) => [r.outcome, r.detail['provider'], r.detail['sso_reason']])).to.deep.equal([
      ['failure', 'acme', 'not_linked'],
      ['failure', 'acme', 'not_linked'],
    ]);
  });

  it('refuses to link an identity that another account has (409 identity_in_use): it stays with the first, the second gets no link, and the page says so', async () => {
    const a = await signedIn('first-holder@example.com');
    const b = await signedIn('second-holder@example.com');
    const { sub } = person('at-provider-x@example.com');
    const linked = await a.browser.signIn('acme', { query: '?link=1' });
    expect(linked.status).to.equal(303);
    expect(linked.headers['location']).to.equal(`${PREFIX}/identities?linked=1`);
    events.length = 0;

    f.provider.signInAs = { sub, amr: ['pwd'] };
    const refused = await b.browser.signIn('acme', { query: '?link=1' });
    expect(refused.status, JSON.stringify(refused.body)).to.equal(409);
    expect(refused.body.code).to.equal('identity_in_use');
    f.provider.signInAs = { sub, amr: ['pwd'] };
    const page = await b.browser.signIn('acme', { query: '?link=1', accept: 'html' });
    expect(page.status).to.equal(409);
    expect(page.text).to.contain('This account at the provider is linked to another account here.');

    // B is still signed in as B, with no identity; A keeps X, and X still signs A in.
    expect(await b.browser.me()).to.equal('second-holder@example.com');
    expect((await b.browser.agent.get(`${PREFIX}/api/identities`).expect(200)).body.identities).to.deep.equal([]);
    const held = (await a.browser.agent.get(`${PREFIX}/api/identities`).expect(200)).body.identities;
    expect(held).to.have.length(1);
    expect(held[0]).to.include({ provider: 'acme', subject: sub, email: 'at-provider-x@example.com' });
    expect(await f.t.parts.sso.identities.userOf('acme', sub)).to.equal(a.user.id);
    expect(events).to.deep.equal([]);
    expect(await f.t.auth.audit.query({ userId: b.user.id, type: 'identity_linked' })).to.deep.equal([]);

    f.provider.signInAs = { sub, amr: ['pwd'] };
    const fresh = new Browser(f);
    expect((await fresh.signIn()).status).to.equal(303);
    expect(await fresh.me()).to.equal('first-holder@example.com');
  });

  it('refuses a start of linking not known to come from our pages (403 csrf_rejected): nobody is sent to the provider, nothing is linked', async () => {
    const { browser, user } = await signedIn('cross-site-target@example.com');
    const { sub } = person();
    events.length = 0;
    // What a browser sends when another site's page links (or redirects) to the start: the session
    // cookie comes along (SameSite=Lax allows a top-level GET), and so does its word on the origin.
    // Without the header (a browser too old to send it, or a program) there is no word that it came from our pages.
    const shapes: Record<string, string>[] = [
      { 'Sec-Fetch-Site': 'cross-site' },
      { 'Sec-Fetch-Site': 'same-site' },
      { 'Sec-Fetch-Site': 'same-site', Origin: 'https://evil.example.com' },
      {},
      { Referer: 'https://evil.example.com/page' },
    ];
    for (const headers of shapes) {
      const refused = await browser.agent.get(`${PREFIX}/sso/acme?link=1`).set(headers).set('Accept', 'text/html');
      expect(refused.status, JSON.stringify(headers)).to.equal(403);
      expect(refused.headers['location']).to.equal(undefined);
      expect(String(refused.headers['set-cookie'] ?? '')).to.not.contain('service_auth_sso=');
      const json = await browser.agent.get(`${PREFIX}/sso/acme?link=1`).set(headers).expect(403);
      expect(json.body.code).to.equal('csrf_rejected');
    }
    expect((await browser.agent.get(`${PREFIX}/api/identities`).expect(200)).body.identities).to.deep.equal([]);
    expect(events).to.deep.equal([]);

    // The account page's button (a link on our own site), and a start typed into the address bar, still work.
    for (const site of ['same-origin', 'none']) {
      const started = await browser.agent.get(`${PREFIX}/sso/acme?link=1`).set('Sec-Fetch-Site', site).expect(303);
      expect(String(started.headers['location'])).to.match(/^http:\/\/127\.0\.0\.1:\d+\//);
    }
    const linked = await browser.signIn('acme', { query: '?link=1' });
    expect(linked.status).to.equal(303);
    expect(await f.t.parts.sso.identities.userOf('acme', sub)).to.equal(user.id);
  });
});
