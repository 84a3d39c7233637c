import { expect } from 'chai';
import request from 'supertest';
import { createTestApp, PASSWORD, sessionCookieFrom, type TestApp } from '../helpers/app.js';
import { cspHash, formPost, pageGet, tagWithId } from '../helpers/forms.js';

describe('the /tokens pages', () => {
  let t: TestApp;
  let ada: string;

  beforeEach(async () => {
    t = await createTestApp(
      {
        SERVICE_AUTH_RATE_LIMIT_ENABLED: false,
        SERVICE_AUTH_MAX_TOKENS_PER_USER: 2,
        SERVICE_AUTH_TOKEN_MAX_EXPIRY_DAYS: 30,
        SERVICE_AUTH_TOKEN_DEFAULT_EXPIRY_DAYS: 7,
      },
      (app, auth) => {
        app.get('/api/whoami', auth.tokenRequired, (req, res) =>
          res.json({ email: req.user!.email, scopes: req.token!.scopes }),
        );
      },
    );
    await t.auth.users.create({ email: 'ada@example.com', password: PASSWORD });
    ada = sessionCookieFrom(
      await request(t.app).post('/service-auth/login').send({ email: 'ada@example.com', password: PASSWORD }),
    )!;
  });
  afterEach(() => t.auth.close());

  const post = (path: string, body: Record<string, string>) => formPost(t.app, path, body).set('Cookie', ada);
  const whoami = (token: string) => request(t.app).get('/api/whoami').set('Authorization', `Bearer ${token}`);
  const rawTokenIn = (html: string) =>
    /<code class="secret" id="new-token">(sat_[A-Za-z0-9_]+)<\/code>/.exec(html)?.[1];

  it('sends a browser without a session to the login page, and back here after', async () => {
    const response = await pageGet(t.app, '/tokens').expect(303);
    expect(response.headers['location']).to.equal('/service-auth/login?next=%2Fservice-auth%2Ftokens');
  });

  it('shows an empty list and a labelled creation form with the configured expiry', async () => {
    const page = await pageGet(t.app, '/tokens').set('Cookie', ada).expect(200);
    expect(page.headers['x-frame-options']).to.equal('DENY');
    expect(page.headers['cache-control']).to.equal('no-store');
    expect(page.text).to.contain('You have no API tokens yet.');
    expect(page.text).to.contain('<form method="post" action="/service-auth/api/tokens"');
    for (const field of ['name', 'expires_in_days', 'scopes']) expect(page.text).to.contain(`<label for="${field}">`);
    expect(tagWithId(page.text, 'expires_in_days')).to.contain('value="7"').and.contain('max="30"');
    expect(tagWithId(page.text, 'scopes')).to.contain('aria-describedby="scopes-hint"');
    // No token shown, so no copy script either.
    expect(page.text).not.to.contain('<script>');
  });

  it('creates a token from the form and shows it once, with a copy button the page may run', async () => {
    const created = await post('/api/tokens', {
      name: 'from the page',
      expires_in_days: '7',
      scopes: 'reports:read, deploy',
    }).expect(201);
    expect(created.headers['cache-control']).to.equal('no-store');
    const raw = rawTokenIn(created.text)!;
    expect((await whoami(raw).expect(200)).body.scopes).to.deep.equal(['reports:read', 'deploy']);
    expect(created.text).to.contain('it will not be shown again');

    // The button works only with the script, so it starts hidden; the script is allowed by hash.
    expect(created.text).to.match(
      /<button type="button" class="secondary" data-copy="new-token"[^>]* hidden>Copy<\/button>/,
    );
    const script = /<script>([\s\S]*?)<\/script>/.exec(created.text)![1]!;
    expect(created.headers['content-security-policy']).to.contain(`script-src ${cspHash(script)}`);

    const again = await pageGet(t.app, '/tokens').set('Cookie', ada).expect(200);
    expect(again.text).to.contain('from the page').and.contain('reports:read deploy').and.not.contain(raw);
    expect(rawTokenIn(again.text)).to.equal(undefined);
  });

  it('puts each refused field beside its input, keeps what was typed, and focuses the first', async () => {
    const response = await post('/api/tokens', { name: '', expires_in_days: '99', scopes: 'Bad Scope!' }).expect(400);
    expect(response.text).to.match(/id="name-error">.*Give the token a name of 1 to 100 characters\./);
    expect(response.text).to.match(/id="expires_in_days-error">.*Enter a whole number of days from 1 to 30\./);
    expect(response.text).to.match(/id="scopes-error">.*Each scope is 1 to 64 of/);
    expect(tagWithId(response.text, 'name')).to.contain('aria-invalid="true"').and.contain('autofocus');
    expect(tagWithId(response.text, 'expires_in_days')).to.contain('value="99"').and.not.contain('autofocus');
    expect(tagWithId(response.text, 'scopes'))
      .to.contain('value="Bad Scope!"')
      .and.contain('aria-describedby="scopes-error scopes-hint"');
    expect(await t.auth.tokens.list({ user: 'ada@example.com' })).to.have.length(0);
  });

  it('says so above the form when the token limit is reached', async () => {
    await post('/api/tokens', { name: 'one' }).expect(201);
    await post('/api/tokens', { name: 'two' }).expect(201);
    const third = await post('/api/tokens', { name: 'three' }).expect(409);
    expect(third.text)
      .to.contain('role="alert"')
      .and.contain('You already have 2 tokens. Revoke one before creating another.');
  });

  it('asks before revoking, on a page that needs no script, then revokes and says so', async () => {
    const raw = rawTokenIn((await post('/api/tokens', { name: 'to revoke' }).expect(201)).text)!;
    const [listed] = await t.auth.tokens.list({ user: 'ada@example.com' });
    const list = await pageGet(t.app, '/tokens').set('Cookie', ada).expect(200);
    expect(list.text).to.contain(
      `<a href="/service-auth/tokens/${listed!.id}/revoke" aria-label="Revoke the token to revoke…">`,
    );

    const confirm = await pageGet(t.app, `/tokens/${listed!.id}/revoke`).set('Cookie', ada).expect(200);
    expect(confirm.text).to.contain('Revoke the token “to revoke”?');
    expect(confirm.text).to.contain(`<form method="post" action="/service-auth/api/tokens/${listed!.id}/revoke"`);
    expect(confirm.text).to.contain('href="/service-auth/tokens">Cancel</a>');
    // Looking at the confirmation changes nothing.
    await whoami(raw).expect(200);

    const revoked = await post(`/api/tokens/${listed!.id}/revoke`, {}).expect(303);
    expect(revoked.headers['location']).to.equal('/service-auth/tokens?revoked=1');
    await whoami(raw).expect(401);
    const after = await pageGet(t.app, revoked.headers['location']!.replace('/service-auth', ''))
      .set('Cookie', ada)
      .expect(200);
    expect(after.text)
      .to.contain('role="status"')
      .and.contain('The token was revoked.')
      .and.contain('You have no API tokens yet.');
  });

  describe('organizations', () => {
    /** The `<select>` and its options as the page shows them (empty when there is none). */
    const orgChoices = (html: string) =>
      [
        ...(/<select id="org"[\s\S]*?<\/select>/.exec(html)?.[0] ?? '').matchAll(
          /<option value="([^"]*)"( selected)?>([^<]*)</g,
        ),
      ].map((m) => `${m[1]}${m[2] ? '*' : ''} ${m[3]}`);
    const orgCell = (html: string, name: string) =>
      new RegExp(`<td data-label="Name">${name}</td>[\\s\\S]*?<td data-label="Organization">([^<]*)</td>`).exec(
        html,
      )?.[1];

    it('offers no choice of organization to a user without any, and lists tokens as bound to none', async () => {
      await post('/api/tokens', { name: 'plain' }).expect(201);
      const page = await pageGet(t.app, '/tokens').set('Cookie', ada).expect(200);
      expect(page.text).not.to.contain('<select');
      expect(orgCell(page.text, 'plain')).to.equal('all');
    });

    it("binds a new token to one of the user's organizations chosen in the form, and shows each token's", async () => {
      t.parts.knownOrgRole = (name) => name === 'owner';
      const bob = await t.auth.users.create({ email: 'bob@example.com', password: PASSWORD });
      const globex = await t.auth.orgs.create({ name: 'Globex', owner: 'ada@example.com' });
      const acme = await t.auth.orgs.create({ name: 'Acme & Co', owner: 'ada@example.com' });
      const initech = await t.auth.orgs.create({ name: 'Initech', owner: bob.id });

      const form = await pageGet(t.app, '/tokens').set('Cookie', ada).expect(200);
      expect(form.text).to.contain('<label for="org">Organization (optional)</label>');
      expect(orgChoices(form.text)).to.deep.equal([
        '* None: every organization',
        `${acme.id} Acme &amp; Co (acme-co)`,
        `${globex.id} Globex (globex)`,
      ]);

      const created = await post('/api/tokens', { name: 'acme bot', org: String(acme.id) }).expect(201);
      const raw = rawTokenIn(created.text)!;
      const listed = await request(t.app)
        .get('/service-auth/api/orgs')
        .set('Authorization', `Bearer ${raw}`)
        .expect(200);
      expect(listed.body.orgs.map((org: { slug: string }) => org.slug)).to.deep.equal(['acme-co']);
      await post('/api/tokens', { name: 'any org', org: '' }).expect(201);

      const page = await pageGet(t.app, '/tokens').set('Cookie', ada).expect(200);
      expect(page.text).to.contain('<th scope="col">Organization</th>');
      expect(orgCell(page.text, 'acme bot')).to.equal('acme-co');
      expect(orgCell(page.text, 'any org')).to.equal('all');
      expect((await t.auth.tokens.list({ user: 'ada@example.com' })).map((token) => token.org)).to.deep.equal([
        { id: acme.id, slug: 'acme-co' },
        null,
      ]);

      // The bound token itself manages no tokens: the page is refused to it (docs/tokens.md).
      await pageGet(t.app, '/tokens').set('Authorization', `Bearer ${raw}`).expect(403);

      // An organization not hers (or none such) is refused beside the field, with her choice kept, and nothing made.
      for (const org of [String(initech.id), 'initech', '99999']) {
        const refused = await post('/api/tokens', { name: 'sneaky', org }).expect(400);
        expect(refused.text).to.match(/id="org-error">.*Choose one of your organizations, or none\./);
        expect(tagWithId(refused.text, 'org')).to.contain('aria-invalid="true"').and.contain('autofocus');
      }
      const kept = await post('/api/tokens', { name: '', org: String(globex.id) }).expect(400);
      expect(orgChoices(kept.text)).to.include(`${globex.id}* Globex (globex)`);
      expect(await t.auth.tokens.list({ user: 'ada@example.com' })).to.have.length(2);
    });
  });

  it("will not confirm or revoke another user's token, or one that does not exist", async () => {
    await t.auth.users.create({ email: 'bob@example.com', password: PASSWORD });
    const bobs = await t.auth.tokens.create('bob@example.com', { name: 'bob only' });
    const confirm = await pageGet(t.app, `/tokens/${bobs.id}/revoke`).set('Cookie', ada).expect(404);
    expect(confirm.text).to.contain('That token does not exist, or was already revoked.').and.not.contain('bob only');
    const revoke = await post(`/api/tokens/${bobs.id}/revoke`, {}).expect(404);
    expect(revoke.headers['content-type']).to.match(/^text\/html/);
    await whoami(bobs.token).expect(200);
  });
});
