/**
 * The client's rules in an organization say what the server decides (CONTRACT-4 §28, issue 40):
 * organization roles reach only subjects with a tenant field, so `can('update', 'User')` in an
 * organization is decided by global roles alone, asked of the type or of an object, whatever the
 * organization's `manage all` says. The rules `GET /api/abilities` serialises are one CASL list,
 * which cannot leave the organization's rules out for one type: they carry that decision
 * themselves (servedInOrgOrder), and the client's ability over them agrees with the server's,
 * for the type, for objects, for a field, and for a scoped token.
 */
import { expect } from 'chai';
import { subject as asSubject } from '@casl/ability';
import fc from 'fast-check';
import request from 'supertest';
import type { AppAbility } from '../../src/authorization/ability-types.js';
import type { RoleRule } from '../../src/authorization/role-rules.js';
import { toPrincipal } from '../../src/authorization/principal.js';
import { createClientAbility } from '../../src/client/index.js';
import { createTestApp, type TestApp } from '../helpers/app.js';

const TYPES = ['Doc', 'User', 'Organization', 'Role'];
const ACTIONS = ['read', 'update', 'manage'];
const conditions = fc.oneof(
  fc.record({ team: fc.constantFrom('red', 'blue') }),
  fc.record({ org_id: fc.constantFrom(1, 2) }),
  fc.record({ id: fc.constantFrom(1, 2) }),
  fc.record({ team: fc.record({ $ne: fc.constant('red') }) }),
);
const rule = fc.record(
  {
    action: fc.constantFrom(...ACTIONS),
    subject: fc.oneof(fc.constantFrom('all', ...TYPES), fc.subarray(TYPES, { minLength: 2, maxLength: 2 })),
    inverted: fc.boolean(),
    fields: fc.constantFrom(['title'], ['team', 'title']),
    conditions,
  },
  { requiredKeys: ['action', 'subject'], noNullPrototype: true },
) as fc.Arbitrary<RoleRule>;
const rules = fc.array(rule, { minLength: 1, maxLength: 4 });
const grants = fc.array(
  rule.map((one) => ({ ...one, inverted: false })),
  { minLength: 1, maxLength: 2 },
);
const objects = fc.array(
  fc.record(
    {
      type: fc.constantFrom(...TYPES),
      id: fc.constantFrom(1, 2),
      org_id: fc.constantFrom(1, 2),
      team: fc.constantFrom('red', 'blue'),
    },
    { requiredKeys: ['type'] },
  ),
  { minLength: 1, maxLength: 5 },
);

/** Every question: of each type, of each object, with and without a field, for each action. */
function answers(ability: AppAbility, drawn: { type: string }[]): string[] {
  const said: string[] = [];
  for (const action of ACTIONS) {
    for (const field of [undefined, 'title']) {
      for (const type of TYPES) said.push(`${action} ${type} ${field ?? ''}: ${ability.can(action, type, field)}`);
      for (const { type, ...fields } of drawn) {
        const allowed = ability.can(action, asSubject(type, { ...fields }), field);
        said.push(`${action} ${JSON.stringify({ type, ...fields })} ${field ?? ''}: ${allowed}`);
      }
    }
  }
  return said;
}

describe("the client's rules in an organization", () => {
  let t: TestApp;
  before(async () => {
    t = await createTestApp();
  });
  after(() => t.auth.close());

  const principal = toPrincipal({ id: 1, email: 'ada@example.com', is_admin: false, roles: ['r'] });
  const place = { org: { id: 1, slug: 'acme' }, roles: ['o'] };

  it("fixed case: an organization's manage all reaches no user in the client, asked of the type or of one", () => {
    t.auth.defineRole('r', [{ action: 'read', subject: 'User', conditions: { id: 1 } }]);
    t.auth.defineOrgRole('o', [{ action: 'manage', subject: 'all' }]);
    const client = createClientAbility(t.parts.abilities.serializableRules(principal, place));
    expect(client.can('update', 'User'), 'update User').to.equal(false);
    const stamped = asSubject('User', { id: 2, org_id: 1 });
    expect(client.can('update', stamped), 'update a user stamped with the org').to.equal(false);
    expect(client.can('read', asSubject('User', { id: 1 })), 'read oneself, as the global role says').to.equal(true);
    expect(client.can('read', asSubject('User', { id: 2, org_id: 1 })), 'read another').to.equal(false);
    expect(client.can('update', 'Project'), 'update Project').to.equal(true);
    expect(client.can('delete', asSubject('Project', { org_id: 1 })), 'a project of the organization').to.equal(true);
    expect(client.can('delete', asSubject('Project', { org_id: 2 })), "another's project").to.equal(false);
  });

  it('fixed case: GET /api/abilities?org= answers rules whose client ability refuses update User', async () => {
    const app = await createTestApp();
    try {
      app.auth.defineOrgRole('owner', [{ action: 'manage', subject: 'all' }]);
      const owner = await app.auth.users.create({ email: 'owner@example.com', password: 'Correct-Horse-42' });
      await app.auth.orgs.create({ name: 'Globex', slug: 'globex', owner: owner.id });
      const agent = request.agent(app.app);
      const login = { email: 'owner@example.com', password: 'Correct-Horse-42' };
      await agent.post('/service-auth/login').send(login).expect(200);
      const { body } = await agent.get('/service-auth/api/abilities?org=globex').expect(200);
      const client = createClientAbility(body.rules);
      expect(client.can('update', 'User')).to.equal(false);
      expect(client.can('update', 'Invoice')).to.equal(true);
    } finally {
      await app.auth.close();
    }
  });

  it('the client over the served rules answers as the server does, in an organization and for a scoped token', () => {
    fc.assert(
      fc.property(rules, rules, grants, objects, (own, orgOwn, scoped, drawn) => {
        t.auth.defineRole('r', own);
        t.auth.defineOrgRole('o', orgOwn);
        t.auth.defineScope('docs', scoped, 'Documents');
        const abilities = t.parts.abilities;
        const inOrg = abilities.abilityFor(principal, place);
        const client = createClientAbility(abilities.serializableRules(principal, place)) as AppAbility;
        expect(answers(client, drawn), 'in the organization').to.deep.equal(answers(inOrg, drawn));
        const token = abilities.forToken(inOrg, principal, ['docs']);
        const tokenClient = createClientAbility(abilities.serializableRules(principal, place, ['docs'])) as AppAbility;
        expect(answers(tokenClient, drawn), 'a scoped token in the organization').to.deep.equal(answers(token, drawn));
      }),
      { numRuns: 150 },
    );
  });
});
