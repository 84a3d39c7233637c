/**
 * The admin console over HTTP (CONTRACT-3 §25, docs/admin.md): who gets in (CASL rules, a
 * session), what each form post does through the services, what it records, and how bad input is
 * refused: with a page, never a 500. One app for the file; each test makes the users it changes.
 */
import { expect } from 'chai';
import request from 'supertest';
import { totpCode } from '../../src/mfa/totp.js';
import { User } from '../../src/storage/entities/index.js';
import { createTestApp, PASSWORD, sessionCookieFrom, type TestApp } from '../helpers/app.js';
import { formPost, pageGet } from '../helpers/forms.js';

describe('the admin console', () => {
  let t: TestApp;
  let operator: string;
  let operatorId: number;
  let support: string;
  let member: string;
  let memberId: number;
  let counter = 0;

  async function logIn(email: string): Promise<string> {
    const response = await request(t.app).post('/service-auth/login').send({ email, password: PASSWORD }).expect(200);
    return sessionCookieFrom(response)!;
  }

  /** A fresh user (with a session) for a test to change. */
  async function someone(roles: string[] = []): Promise<{ id: number; email: string; cookie: string }> {
    const email = `user${++counter}@example.com`;
    const user = await t.auth.users.create({ email, password: PASSWORD, roles });
    return { id: user.id, email, cookie: await logIn(email) };
  }

  before(async () => {
    t = await createTestApp({ SERVICE_AUTH_RATE_LIMIT_ENABLED: false });
    t.auth.defineRole('operator', [{ action: 'manage', subject: 'all' }]);
    // Support staff: every user, but of a user's things only the account's state and sessions; the audit log.
    t.auth.defineRole('support', [
      { action: 'read', subject: 'User' },
      { action: 'update', subject: 'User', fields: ['disabled', 'sessions'] },
      { action: 'read', subject: 'AuditRecord' },
    ]);
    t.auth.defineRole('member', [{ action: 'read', subject: 'User', conditions: { id: '${user.id}' } }]);
    t.auth.defineRole('analyst', [{ action: 'read', subject: 'Report', conditions: { team: 'north' } }]);
    t.auth.defineRole('auditor', [{ action: 'read', subject: 'Policy' }]);
    operatorId = (await t.auth.users.create({ email: 'olga@example.com', password: PASSWORD, roles: ['operator'] })).id;
    await t.auth.users.create({ email: 'sam@example.com', password: PASSWORD, roles: ['support'] });
    memberId = (await t.auth.users.create({ email: 'mia@example.com', password: PASSWORD, roles: ['member'] })).id;
    [operator, support, member] = (await Promise.all(
      ['olga@example.com', 'sam@example.com', 'mia@example.com'].map(logIn),
    )) as [string, string, string];
  });
  after(() => t.auth.close());

  const get = (path: string, cookie: string) => pageGet(t.app, path).set('Cookie', cookie);
  const post = (path: string, body: Record<string, string>, cookie: string) =>
    formPost(t.app, path, body).set('Cookie', cookie);

  describe('who gets in', () => {
    const pages = [
      '/admin',
      '/admin/users',
      '/admin/users/1',
      '/admin/orgs',
      '/admin/orgs/acme',
      '/admin/audit',
      '/admin/policy',
    ];

    it('lets in an admin who also holds member: a grant with conditions above manage all takes nothing away (issue 39)', async () => {
      t.auth.defineRole('admin', [{ action: 'manage', subject: 'all' }]);
      // Roles by name: member's own-row rule comes after admin's, above it in CASL's priority.
      const both = await someone(['admin', 'member']);
      for (const path of ['/admin', '/admin/users', `/admin/users/${memberId}`, '/admin/audit', '/admin/policy'])
        await get(path, both.cookie).expect(200);
    });

    it('refuses every page and every form to a user whose rules reach only their own row (403)', async () => {
      for (const path of [...pages, `/admin/users/${memberId}`]) {
        const page = await get(path, member).expect(403);
        expect(page.type, path).to.equal('text/html');
      }
      for (const [path, body] of [
        ['disabled', { disabled: 'true' }],
        ['sessions', { sessions: 'end' }],
        ['roles/add', { roles: 'operator' }],
      ] as const) {
        await post(`/admin/users/${memberId}/${path}`, body, member).expect(403);
      }
      await formPost(t.app, '/admin/audit/verify', {}).set('Cookie', member).expect(403);
      expect((await t.auth.users.get(memberId)).roles.has('operator')).to.equal(false);
    });

    it('sends a browser without a session to log in, and refuses an API token even of an operator', async () => {
      const page = await pageGet(t.app, '/admin/users').expect(303);
      expect(page.headers['location']).to.equal('/service-auth/login?next=%2Fservice-auth%2Fadmin%2Fusers');
      const { token } = await t.auth.tokens.create(operatorId, { name: 'ops' });
      const refused = await request(t.app)
        .get('/service-auth/admin/users')
        .set('Authorization', `Bearer ${token}`)
        .expect(403);
      expect(refused.body).to.include({
        code: 'forbidden',
        detail: 'The admin console is for a signed-in person, not for API tokens.',
      });
    });

    it('opens only the parts the rules reach: support sees users and the audit log, not organizations or policies', async () => {
      const home = await get('/admin', support).expect(200);
      expect(home.text).to.contain('href="/service-auth/admin/users"').and.contain('href="/service-auth/admin/audit"');
      expect(home.text).not.to.contain('href="/service-auth/admin/orgs"');
      await get('/admin/orgs', support).expect(403);
      await get('/admin/policy', support).expect(403);
      expect(home.headers['content-security-policy']).to.contain("default-src 'none'");
      expect(home.headers['cache-control']).to.equal('no-store');
    });
  });

  describe('users', () => {
    it('searches by part of the address, literally, and pages through 25 at a time', async () => {
      await t.auth.users.create({ email: 'under_score@example.com', password: PASSWORD });
      await t.auth.users.create({ email: 'underXscore@example.com', password: PASSWORD });
      const found = await get('/admin/users?email=DER_sc', operator).expect(200);
      expect(found.text).to.contain('under_score@example.com').and.not.contain('underXscore@example.com');
      // 26 rows as they are stored, without hashing 26 passwords.
      const em = (await t.parts.storage.em()).fork();
      for (let i = 0; i < 26; i++)
        em.create(User, { email: `many${i}@list.example`, passwordHash: 'not a hash: nobody logs in as them' });
      await em.flush();
      const first = await get('/admin/users?email=list.example', operator).expect(200);
      expect(first.text.match(/@list\.example</g)).to.have.length(25);
      expect(first.text).to.contain('href="/service-auth/admin/users?email=list.example&amp;page=2"');
      const second = await get('/admin/users?email=list.example&page=2', operator).expect(200);
      expect(second.text.match(/@list\.example</g)).to.have.length(1);
      expect(second.text).not.to.contain('rel="next"');
    });

    it('refuses a bad page number (400) and an unknown user id (404), with a page', async () => {
      for (const page of ['0', '-1', 'x', '1.5', '9999999']) {
        const refused = await get(`/admin/users?page=${page}`, operator).expect(400);
        expect(refused.type).to.equal('text/html');
      }
      for (const id of ['999999', 'abc', '0']) {
        const refused = await get(`/admin/users/${id}`, operator).expect(404);
        expect(refused.type).to.equal('text/html');
      }
    });

    it('disables a user: their session is refused at once, the record names the operator; enabling lets them log in again', async () => {
      const ada = await someone();
      await request(t.app).get('/service-auth/api/sessions').set('Cookie', ada.cookie).expect(200);
      const done = await post(`/admin/users/${ada.id}/disabled`, { disabled: 'true' }, operator).expect(303);
      expect(done.headers['location']).to.equal(`/service-auth/admin/users/${ada.id}?done=disabled`);
      await request(t.app).get('/service-auth/api/sessions').set('Cookie', ada.cookie).expect(401);
      expect((await t.auth.users.get(ada.id)).disabled).to.equal(true);
      const [record] = await t.auth.audit.query({ userId: ada.id, type: 'user_disabled' });
      expect(record!.detail).to.include({ by: operatorId, actor: 'http' });
      const page = await get(`/admin/users/${ada.id}?done=disabled`, operator).expect(200);
      expect(page.text).to.contain('The account is disabled').and.contain('Enable the account');
      await post(`/admin/users/${ada.id}/disabled`, { disabled: 'false' }, operator).expect(303);
      await logIn(ada.email);
    });

    it('gives and takes away defined roles only, with the assign rule, and refuses anything else', async () => {
      const bea = await someone();
      await post(`/admin/users/${bea.id}/roles/add`, { roles: 'analyst' }, operator).expect(303);
      expect([...(await t.auth.users.get(bea.id)).roles]).to.deep.equal(['analyst']);
      const [added] = await t.auth.audit.query({ userId: bea.id, type: 'role_added' });
      expect(added!.detail).to.include({ role: 'analyst', by: operatorId });
      expect(
        (await post(`/admin/users/${bea.id}/roles/add`, { roles: 'nobody-defines-this' }, operator).expect(422)).type,
      ).to.equal('text/html');
      await post(`/admin/users/${bea.id}/roles/add`, { roles: 'bad name!' }, operator).expect(400);
      await post(`/admin/users/${bea.id}/roles/add`, { roles: 'analyst', extra: 'x' }, operator).expect(400);
      // Support may read every user, and change their state, but not their roles.
      await post(`/admin/users/${bea.id}/roles/remove`, { roles: 'analyst' }, support).expect(403);
      await post(`/admin/users/${bea.id}/roles/remove`, { roles: 'analyst' }, operator).expect(303);
      expect([...(await t.auth.users.get(bea.id)).roles]).to.deep.equal([]);
    });

    it('ends every session, revokes every token and resets the second factor', async () => {
      const cy = await someone();
      const { token } = await t.auth.tokens.create(cy.id, { name: 'ci' });
      const setup = await t.parts.secondFactors.beginTotp({ id: cy.id, email: cy.email });
      await t.parts.secondFactors.confirmTotp(cy.id, totpCode(setup.secret, Date.now()));
      const cookie = await t.auth.users.get(cy.id).then(() => cy.cookie);
      await post(`/admin/users/${cy.id}/tokens`, { tokens: 'revoke' }, operator).expect(303);
      await request(t.app).get('/service-auth/api/tokens').set('Authorization', `Bearer ${token}`).expect(401);
      await post(`/admin/users/${cy.id}/mfa`, { mfa: 'reset' }, operator).expect(303);
      expect((await t.auth.users.get(cy.id)).mfa_enabled).to.equal(false);
      const again = await logIn(cy.email);
      await post(`/admin/users/${cy.id}/sessions`, { sessions: 'end' }, operator).expect(303);
      for (const ended of [cookie, again])
        await request(t.app).get('/service-auth/api/sessions').set('Cookie', ended).expect(401);
      const types = (await t.auth.audit.query({ userId: cy.id }))
        .filter((record) => record.detail['by'] === operatorId)
        .map((record) => record.type);
      expect(types).to.include.members(['token_revoked', 'mfa_disabled', 'session_revoked']);
    });

    it('offers and allows support only the changes their fields allow', async () => {
      const dee = await someone();
      const page = await get(`/admin/users/${dee.id}`, support).expect(200);
      expect(page.text).to.contain('Disable the account').and.contain('End every session');
      expect(page.text)
        .not.to.contain('Revoke every token')
        .and.not.contain('Reset the second factor')
        .and.not.contain('Give the role');
      await post(`/admin/users/${dee.id}/tokens`, { tokens: 'revoke' }, support).expect(403);
      await post(`/admin/users/${dee.id}/mfa`, { mfa: 'reset' }, support).expect(403);
      await post(`/admin/users/${dee.id}/sessions`, { sessions: 'end' }, support).expect(303);
    });

    it('refuses a form posted from another site, and changes nothing', async () => {
      const eve = await someone();
      const refused = await post(`/admin/users/${eve.id}/disabled`, { disabled: 'true' }, operator)
        .set('Sec-Fetch-Site', 'cross-site')
        .expect(403);
      expect(refused.text).to.contain('another site');
      expect((await t.auth.users.get(eve.id)).disabled).to.equal(false);
      await post(`/admin/users/${eve.id}/disabled`, { disabled: 'maybe' }, operator).expect(400);
    });

    it('acts as a user from the user page: the impersonation service decides, and the browser goes home as them', async () => {
      const fay = await someone();
      const root = await t.auth.users.create({
        email: `root${++counter}@example.com`,
        password: PASSWORD,
        isAdmin: true,
      });
      const own = await logIn('olga@example.com'); // starting sets this session aside: not the shared cookie
      expect((await get(`/admin/users/${fay.id}`, own).expect(200)).text).to.contain('Act as this user');
      expect((await get(`/admin/users/${root.id}`, own).expect(200)).text).not.to.contain('Act as this user');
      expect((await get(`/admin/users/${fay.id}`, support).expect(200)).text).not.to.contain('Act as this user');
      await post(`/admin/users/${root.id}/impersonate`, { user_id: String(root.id) }, own).expect(403);
      await post(`/admin/users/${fay.id}/impersonate`, { user_id: String(fay.id) }, support).expect(403);
      await post('/admin/users/999999/impersonate', { user_id: '999999' }, own).expect(404);
      const started = await post(`/admin/users/${fay.id}/impersonate`, { user_id: String(fay.id) }, own).expect(303);
      expect(started.headers['location']).to.equal('/');
      const acting = sessionCookieFrom(started)!;
      expect((await request(t.app).get('/service-auth/me').set('Cookie', acting).expect(200)).body.user.email).to.equal(
        fay.email,
      );
      const [record] = await t.auth.audit.query({ userId: fay.id, type: 'impersonation_started' });
      expect(record!.detail).to.include({ impersonator: operatorId, by: operatorId });
    });
  });

  describe('organizations', () => {
    it('lists them a page at a time and shows one with its members and roles; refuses unknown ones', async () => {
      await t.auth.orgs.create({ name: 'Acme', slug: 'acme', owner: operatorId });
      const list = await get('/admin/orgs', operator).expect(200);
      expect(list.text).to.contain('href="/service-auth/admin/orgs/acme"');
      const org = await get('/admin/orgs/acme', operator).expect(200);
      expect(org.text).to.contain('Organization Acme').and.contain('olga@example.com');
      await get('/admin/orgs/no-such-org', operator).expect(404);
      await get('/admin/orgs?page=0', operator).expect(400);
    });
  });

  describe('the audit log', () => {
    it('filters by type, user and days, pages back, and verifies the chain', async () => {
      const fay = await someone();
      for (let i = 0; i < 55; i++)
        t.parts.audit.fail({
          type: 'login',
          userId: memberId,
          email: 'mia@example.com',
          reason: 'invalid_credentials',
        });
      await t.auth.audit.flush();
      const filtered = await get(`/admin/audit?type=login&email=${encodeURIComponent(fay.email)}`, operator).expect(
        200,
      );
      expect(filtered.text).to.contain(fay.email).and.contain('<code>login</code>');
      expect(filtered.text).not.to.contain('<code>user_created</code>');
      const today = new Date().toISOString().slice(0, 10);
      expect((await get(`/admin/audit?since=${today}&until=${today}`, operator).expect(200)).text).to.contain(
        '<code>login</code>',
      );
      expect((await get('/admin/audit?until=2000-01-01', operator).expect(200)).text).to.contain('No record matches.');
      for (const bad of [
        'type=nothing',
        'since=yesterday',
        'since=2026-13-45',
        'since=2026-02-01&until=2026-01-01',
        'before=-3',
      ]) {
        expect((await get(`/admin/audit?${bad}`, operator).expect(400)).type, bad).to.equal('text/html');
      }
      const first = await get('/admin/audit', operator).expect(200);
      const older = /href="\/service-auth\/admin\/audit\?before=(\d+)"/.exec(first.text);
      expect(older, 'a link to older records').to.not.equal(null);
      await get(`/admin/audit?before=${older![1]}`, operator).expect(200);
      const verified = await formPost(t.app, '/admin/audit/verify', {}).set('Cookie', support).expect(200);
      expect(verified.text).to.match(/The chain is intact: \d+ rows/);
      // Verified from a filtered page: the answer keeps its filters, and its form sends them again.
      expect(filtered.text).to.contain(
        `action="/service-auth/admin/audit/verify?type=login&amp;email=${encodeURIComponent(fay.email)}"`,
      );
      const kept = await formPost(t.app, `/admin/audit/verify?type=login&email=${encodeURIComponent(fay.email)}`, {})
        .set('Cookie', support)
        .expect(200);
      expect(kept.text)
        .to.match(/The chain is intact: \d+ rows/)
        .and.contain(fay.email)
        .and.not.contain('<code>user_created</code>');
      expect(kept.text).to.contain(`value="${fay.email}"`);
    });
  });

  describe('the policy explorer', () => {
    it('shows each role’s reach, and why a user may not do something, with the condition that failed', async () => {
      const auditor = await logIn((await someone(['auditor'])).email);
      const page = await get('/admin/policy', auditor).expect(200);
      expect(page.text)
        .to.contain('Global roles: member')
        .and.contain('class="reach-some">conditional')
        .and.contain('class="reach-all">allowed');
      const why = await get(
        `/admin/policy?email=mia%40example.com&action=read&subject=User&fields=${encodeURIComponent(`id:=${operatorId}`)}`,
        auditor,
      ).expect(200);
      expect(why.text).to.contain('Refused: mia@example.com may not read this User.');
      expect(why.text).to.contain(`id $eq ${memberId}; the subject has ${operatorId}`);
      const allowed = await get(
        `/admin/policy?email=mia%40example.com&action=read&subject=User&fields=${encodeURIComponent(`id:=${memberId}`)}`,
        auditor,
      ).expect(200);
      expect(allowed.text).to.contain('Allowed: mia@example.com may read this User.');
      const typo = await get('/admin/policy?email=mia%40example.com&action=raed&subject=User', auditor).expect(400);
      expect(typo.text).to.contain('did you mean &quot;read&quot;?');
      expect(
        (await get('/admin/policy?email=nobody%40example.com&action=read&subject=User', auditor).expect(400)).text,
      ).to.contain('No user has this address.');
      expect(
        (
          await get('/admin/policy?email=mia%40example.com&action=read&subject=User&fields=nonsense', auditor).expect(
            400,
          )
        ).text,
      ).to.contain('name=text or name:=JSON');
      expect(
        (await get('/admin/policy?email=mia%40example.com&action=read&subject=User&org=nowhere', auditor).expect(400))
          .text,
      ).to.contain('field-error');
    });
  });
});
