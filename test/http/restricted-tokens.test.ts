/**
 * What a token holding part of its user's account may do on the package's own routes (CONTRACT-2
 * §19.4, CONTRACT-3 §25a): a token with scopes, or bound to an organization, neither lists nor
 * revokes its user's other tokens, nor reads the security log (403 `insufficient_scope`), and
 * manages no session, password, address, second factor or the account (403 `session_required`);
 * it may revoke itself. And `GET /api/abilities` answers the rules such a token decides with.
 */
import { createMongoAbility, subject, type MongoAbility, type RawRuleOf } from '@casl/ability';
import { expect } from 'chai';
import request from 'supertest';
import { conditionsMatcher } from '../../src/authorization/conditions.js';
import { createTestApp, PASSWORD, sessionCookieFrom, type TestApp } from '../helpers/app.js';

const API = '/service-auth';
const INSUFFICIENT = 'Bearer realm="service-auth", error="insufficient_scope"';

describe('tokens with scopes or bound to an organization, on the package’s own routes', () => {
  let t: TestApp;
  let ada: number;
  let acme: number;
  let cookie: string;
  /** Ada's tokens: one of the whole account, and the restricted kinds. */
  const tokens = {} as Record<'whole' | 'scoped' | 'bound' | 'scopedAndBound', { id: string; token: string }>;

  before(async () => {
    t = await createTestApp(
      { SERVICE_AUTH_RATE_LIMIT_ENABLED: false, SERVICE_AUTH_MAX_TOKENS_PER_USER: 100 },
      (_app, auth) => {
        auth.defineRole('writer', [
          { action: 'create', subject: 'Note' },
          { action: ['read', 'update', 'delete'], subject: 'Note', conditions: { owner_id: '${user.id}' } },
        ]);
        auth.defineOrgRole('member', [
          { action: 'read', subject: ['Organization', 'Project'] },
          { action: ['create', 'update'], subject: 'Project', fields: ['name'] },
        ]);
        auth.defineScope('notes:read', [{ action: 'read', subject: 'Note' }], 'Read your notes');
        auth.defineScope('projects:read', [{ action: 'read', subject: 'Project' }], 'Read projects');
      },
    );
    t.parts.knownOrgRole = (name) => ['owner', 'member'].includes(name);
    ada = (await t.auth.users.create({ email: 'ada@example.com', password: PASSWORD, roles: ['writer'] })).id;
    const olga = (await t.auth.users.create({ email: 'olga@example.com', password: PASSWORD })).id;
    acme = (await t.auth.orgs.create({ name: 'Acme', slug: 'acme', owner: olga })).id;
    const globex = (await t.auth.orgs.create({ name: 'Globex', slug: 'globex', owner: olga })).id;
    await t.auth.orgs.create({ name: 'Initech', slug: 'initech', owner: olga });
    await t.auth.orgs.addMember(acme, ada, ['member']);
    await t.auth.orgs.addMember(globex, ada, ['member']);
    cookie = sessionCookieFrom(
      await request(t.app).post(`${API}/login`).send({ email: 'ada@example.com', password: PASSWORD }).expect(200),
    )!;
    tokens.whole = await t.auth.tokens.create(ada, { name: 'whole' });
    tokens.scoped = await t.auth.tokens.create(ada, { name: 'scoped', scopes: ['notes:read'] });
    tokens.bound = await t.auth.tokens.create(ada, { name: 'bound', org: 'acme' });
    tokens.scopedAndBound = await t.auth.tokens.create(ada, {
      name: 'scoped and bound',
      scopes: ['projects:read'],
      org: 'acme',
    });
  });
  after(() => t.auth.close());

  const as = (token: string, method: 'get' | 'post' | 'delete', path: string) =>
    request(t.app)[method](`${API}${path}`).set('Authorization', `Bearer ${token}`).send({});

  for (const kind of ['scoped', 'bound', 'scopedAndBound'] as const) {
    it(`${kind}: no listing, revoking others or the security log (403 insufficient_scope); no sessions, password, address, second factor or account (403 session_required)`, async () => {
      const { token } = tokens[kind];
      for (const [method, path] of [
        ['get', '/api/tokens'],
        ['delete', `/api/tokens/${tokens.whole.id}`],
        ['post', `/api/tokens/${tokens.whole.id}/revoke`],
        ['get', '/api/security-log'],
      ] as const) {
        const refused = await as(token, method, path);
        expect(
          { status: refused.status, code: refused.body.code, challenge: refused.headers['www-authenticate'] },
          `${method} ${path}`,
        ).to.deep.equal({ status: 403, code: 'insufficient_scope', challenge: INSUFFICIENT });
      }
      const sessionOnly = [
        ['post', '/api/tokens'],
        ['get', '/api/sessions'],
        ['delete', '/api/sessions'],
        ['delete', '/api/sessions/x'],
        ['post', '/password'],
        ['post', '/email'],
        ['delete', '/me'],
        ['get', '/api/mfa'],
        ['get', '/api/passkeys'],
      ] as const;
      for (const [method, path] of sessionOnly) {
        const refused = await as(token, method, path);
        expect({ status: refused.status, code: refused.body.code }, `${method} ${path}`).to.deep.equal({
          status: 403,
          code: 'session_required',
        });
      }
      // The whole account's token was revoked by none of them.
      await as(tokens.whole.token, 'get', '/api/tokens').expect(200);
    });
  }

  it('a token of the whole account lists the tokens and reads the security log', async () => {
    const listed = await as(tokens.whole.token, 'get', '/api/tokens').expect(200);
    expect(listed.body.tokens.map((token: { name: string }) => token.name)).to.include.members([
      'whole',
      'scoped',
      'bound',
      'scoped and bound',
    ]);
    await as(tokens.whole.token, 'get', '/api/security-log').expect(200);
  });

  describe('GET /api/abilities', () => {
    const rulesOf = async (token: string | null, query = '') => {
      const pending = request(t.app).get(`${API}/api/abilities${query}`);
      const response = await (token ? pending.set('Authorization', `Bearer ${token}`) : pending.set('Cookie', cookie));
      return {
        status: response.status,
        rules: response.body.rules as RawRuleOf<MongoAbility>[],
        code: response.body.code as string | undefined,
      };
    };
    const abilityOf = (rules: RawRuleOf<MongoAbility>[]) => createMongoAbility(rules, { conditionsMatcher });

    it("a scoped token: its owner's rules intersected with its scopes', deciding as the server does", async () => {
      const { rules } = await rulesOf(tokens.scoped.token);
      expect(rules).to.deep.equal([{ action: 'read', subject: 'Note', conditions: { owner_id: ada } }]);
      const ability = abilityOf(rules);
      expect(ability.can('read', subject('Note', { owner_id: ada }))).to.equal(true);
      expect(ability.can('update', subject('Note', { owner_id: ada }))).to.equal(false);
      // The session: every rule of the user's roles.
      expect((await rulesOf(null)).rules).to.have.length(2);
    });

    it("a bound token: the rules in its organization (its roles there, bound to it), as a session's ?org=acme; another organization of its user is 403 forbidden", async () => {
      const bound = await rulesOf(tokens.bound.token);
      expect(bound.rules).to.deep.equal((await rulesOf(null, '?org=acme')).rules);
      expect(bound.rules).to.deep.equal((await rulesOf(tokens.bound.token, `?org=${acme}`)).rules);
      const ability = abilityOf(bound.rules);
      expect(ability.can('read', subject('Project', { org_id: acme }))).to.equal(true);
      expect(ability.can('read', subject('Project', { org_id: acme + 1 })), 'another organization’s project').to.equal(
        false,
      );
      expect(await rulesOf(tokens.bound.token, '?org=globex')).to.deep.include({ status: 403, code: 'forbidden' });
      // Outside organizations, a session has its global roles only.
      expect(abilityOf((await rulesOf(null)).rules).can('read', subject('Project', { org_id: acme }))).to.equal(false);
    });

    it('a scoped and bound token: the rules in its organization within its scopes', async () => {
      const ability = abilityOf((await rulesOf(tokens.scopedAndBound.token)).rules);
      expect(ability.can('read', subject('Project', { org_id: acme }))).to.equal(true);
      expect(ability.can('update', subject('Project', { org_id: acme }))).to.equal(false);
      expect(ability.can('read', subject('Note', { owner_id: ada }))).to.equal(false);
    });

    it('refuses an organization the user is not in (404 not_found, as orgRequired), and a malformed org (400 bad_request)', async () => {
      expect(await rulesOf(null, '?org=initech')).to.deep.include({ status: 404, code: 'not_found' });
      expect(await rulesOf(tokens.bound.token, '?org=initech')).to.deep.include({ status: 404, code: 'not_found' });
      expect(await rulesOf(null, '?org=nowhere')).to.deep.include({ status: 404, code: 'not_found' });
      expect(await rulesOf(null, '?org=acme&org=globex')).to.deep.include({ status: 400, code: 'bad_request' });
    });
  });

  // A suite of its own, so that it runs last (mocha runs a suite's tests before its inner suites').
  describe('revoking itself', () => {
    it('each restricted token may revoke itself (204), and is refused from then on', async () => {
      for (const kind of ['scoped', 'bound', 'scopedAndBound'] as const) {
        await as(tokens[kind].token, 'delete', `/api/tokens/${tokens[kind].id}`).expect(204);
        await as(tokens[kind].token, 'get', '/api/abilities').expect(401);
      }
    });
  });
});
