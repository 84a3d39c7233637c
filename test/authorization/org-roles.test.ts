/**
 * Organization roles without storage: their definition (the same checks and messages as global
 * roles, `${org.*}` placeholders, includes), the tenant condition the package binds every rule
 * with, the order of global and organization rules, and policy files with `roles` and `orgRoles`.
 */
import { expect } from 'chai';
import { subject } from '@casl/ability';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { AppAbility } from '../../src/authorization/ability-types.js';
import { createTestApp, type TestApp } from '../helpers/app.js';

const ada = {
  id: 7,
  email: 'ada@example.com',
  is_admin: false,
  isAdmin: false,
  roles: new Set<string>() as ReadonlySet<string>,
};
const ACME = { id: 1, slug: 'acme' };
const GLOBEX = { id: 2, slug: 'globex' };

describe('organization roles', () => {
  let t: TestApp;
  beforeEach(async () => {
    t = await createTestApp();
  });
  afterEach(() => t.auth.close());

  /** Ada's ability in `org` holding these organization roles (and `globalRoles` everywhere). */
  const inOrg = (org: typeof ACME, roles: string[], globalRoles: string[] = []): AppAbility =>
    t.parts.abilities.abilityFor({ ...ada, roles: new Set(globalRoles) }, { org, roles });

  it('grants within their organization only: its rows by org_id, the organization itself by id', () => {
    t.auth.defineOrgRole('member', [
      { action: 'read', subject: 'Project' },
      { action: 'read', subject: 'Organization' },
    ]);
    const ability = inOrg(ACME, ['member']);
    expect(ability.can('read', subject('Project', { id: 5, org_id: 1 }))).to.equal(true);
    expect(ability.can('read', subject('Project', { id: 6, org_id: 2 }))).to.equal(false);
    expect(ability.can('read', subject('Project', { id: 7 })), 'a subject without the field').to.equal(false);
    expect(ability.can('read', subject('Organization', { ...ACME }))).to.equal(true);
    expect(ability.can('read', subject('Organization', { ...GLOBEX }))).to.equal(false);
    // Outside any organization an organization role grants nothing.
    expect(t.auth.abilityFor({ ...ada, roles: ['member'] }).can('read', 'Project')).to.equal(false);
  });

  it('binds whatever the rule says: conditions on the field itself, other organizations named, inverted rules, manage all', () => {
    t.auth.defineOrgRole('sneaky', [
      { action: 'read', subject: 'Project', conditions: { org_id: 2 } },
      { action: 'update', subject: 'Project', conditions: { $or: [{ org_id: 2 }, { public: true }] } },
      { action: 'delete', subject: ['Project', 'Organization'], conditions: { id: { $in: [1, 2, 5, 6] } } },
    ]);
    const ability = inOrg(ACME, ['sneaky']);
    expect(ability.can('read', subject('Project', { org_id: 2 }))).to.equal(false);
    expect(ability.can('read', subject('Project', { org_id: 1 })), 'org_id 2 and org_id 1 at once').to.equal(false);
    expect(ability.can('update', subject('Project', { org_id: 2, public: true }))).to.equal(false);
    expect(ability.can('update', subject('Project', { org_id: 1, public: true }))).to.equal(true);
    expect(ability.can('delete', subject('Project', { id: 6, org_id: 2 }))).to.equal(false);
    expect(ability.can('delete', subject('Project', { id: 5, org_id: 1 }))).to.equal(true);
    expect(ability.can('delete', subject('Organization', { ...GLOBEX }))).to.equal(false);
    expect(ability.can('delete', subject('Organization', { ...ACME }))).to.equal(true);

    t.auth.defineOrgRole('owner', [{ action: 'manage', subject: 'all' }]);
    const owner = inOrg(ACME, ['owner']);
    expect(owner.can('delete', subject('Organization', { ...ACME }))).to.equal(true);
    expect(owner.can('delete', subject('Task', { org_id: 1 }))).to.equal(true);
    expect(owner.can('delete', subject('Organization', { ...GLOBEX }))).to.equal(false);
    expect(owner.can('delete', subject('Task', { org_id: 2 }))).to.equal(false);
    expect(owner.can('delete', subject('User', { id: 9 })), 'a subject of no organization').to.equal(false);
  });

  it('takes away with an inverted rule only within its organization', () => {
    t.auth.defineRole('reader', [{ action: 'read', subject: 'Project' }]);
    t.auth.defineOrgRole('restricted', [
      { action: 'read', subject: 'Project', inverted: true, conditions: { secret: true } },
    ]);
    const ability = inOrg(ACME, ['restricted'], ['reader']);
    expect(
      ability.can('read', subject('Project', { org_id: 1, secret: true })),
      "the organization's refusal comes after the global grant",
    ).to.equal(false);
    expect(ability.can('read', subject('Project', { org_id: 1, secret: false }))).to.equal(true);
    expect(
      ability.can('read', subject('Project', { org_id: 2, secret: true })),
      "another organization's row: the global grant holds",
    ).to.equal(true);
  });

  it('decides alike whatever order a membership (or a user) lists its roles in: they are taken by name', () => {
    // Found by the tenant property suite: the cache was keyed by the sorted roles while the rules
    // came in the membership's order, so the first order asked decided for both.
    t.auth.defineOrgRole('viewer', [{ action: 'update', subject: 'Doc' }]);
    t.auth.defineOrgRole('owner', [{ action: 'update', subject: 'Doc', inverted: true }]);
    const doc = subject('Doc', { org_id: 1 });
    const first = inOrg(ACME, ['viewer', 'owner']).can('update', doc);
    expect(inOrg(ACME, ['owner', 'viewer']).can('update', doc)).to.equal(first);
    expect(first, '"viewer" after "owner", by name').to.equal(true);
    t.auth.defineRole('b', [{ action: 'read', subject: 'Doc' }]);
    t.auth.defineRole('a', [{ action: 'read', subject: 'Doc', inverted: true }]);
    const global = (roles: string[]) =>
      t.auth.abilityFor({ id: 7, email: 'ada@example.com', roles }).can('read', 'Doc');
    expect([global(['b', 'a']), global(['a', 'b'])]).to.deep.equal([true, true]);
  });

  it('fills in ${org.id} and ${org.slug}, and ${user.*}, per organization', () => {
    t.auth.defineOrgRole('member', [
      { action: 'read', subject: 'Channel', conditions: { name: 'org-${org.slug}', owner_org: '${org.id}' } },
      { action: 'update', subject: 'Task', conditions: { assignee_id: '${user.id}' } },
    ]);
    expect(
      inOrg(ACME, ['member']).can('read', subject('Channel', { org_id: 1, name: 'org-acme', owner_org: 1 })),
    ).to.equal(true);
    expect(
      inOrg(GLOBEX, ['member']).can('read', subject('Channel', { org_id: 2, name: 'org-globex', owner_org: 2 })),
    ).to.equal(true);
    expect(
      inOrg(GLOBEX, ['member']).can('read', subject('Channel', { org_id: 2, name: 'org-acme', owner_org: 2 })),
    ).to.equal(false);
    expect(inOrg(ACME, ['member']).can('update', subject('Task', { org_id: 1, assignee_id: 7 }))).to.equal(true);
    expect(inOrg(ACME, ['member']).can('update', subject('Task', { org_id: 1, assignee_id: 8 }))).to.equal(false);
  });

  it('checks rules as global roles are checked, with the same messages, and refuses ${org.*} in a global role', () => {
    expect(() => t.auth.defineOrgRole('x', [{ subject: 'Article' } as never])).to.throw(
      TypeError,
      'org role "x", rule 1: "action"',
    );
    expect(() => t.auth.defineOrgRole('x', [{ action: 'read', subject: 'A', conditions: { $where: 'x' } }])).to.throw(
      TypeError,
      /"\$where" is not allowed/,
    );
    expect(() =>
      t.auth.defineOrgRole('x', [{ action: 'read', subject: 'A', conditions: { name: '${org.name}' } }]),
    ).to.throw(TypeError, /unknown placeholder \$\{org\.name\}; use \$\{org\.id\} or \$\{org\.slug\}/);
    expect(() => t.auth.defineOrgRole('', [])).to.throw(
      TypeError,
      'defineOrgRole(name, rules): name must be a non-empty string',
    );
    expect(() =>
      t.auth.defineRole('x', [{ action: 'read', subject: 'A', conditions: { org_id: '${org.id}' } }]),
    ).to.throw(TypeError, /role "x", rule 1: "conditions": \$\{org\.id\} is for organization roles only/);
    expect(t.parts.orgRoles.has('x')).to.equal(false);
  });

  it('includes other organization roles, before its own rules, and refuses a cycle', () => {
    t.auth.defineOrgRole('viewer', [{ action: 'read', subject: 'Project' }]);
    t.auth.defineOrgRole('member', {
      includes: ['viewer'],
      rules: [{ action: 'read', subject: 'Project', inverted: true, conditions: { archived: true } }],
    });
    const ability = inOrg(ACME, ['member']);
    expect(ability.can('read', subject('Project', { org_id: 1, archived: false }))).to.equal(true);
    expect(ability.can('read', subject('Project', { org_id: 1, archived: true }))).to.equal(false);
    expect(() => t.auth.defineOrgRole('viewer', { includes: ['member'], rules: [] })).to.throw(
      TypeError,
      'org role "viewer" would include itself: viewer -> member -> viewer',
    );
    expect(t.parts.orgRoles.names()).to.deep.equal(['viewer', 'member']);
  });

  it('names the organization role a rule came from in messages', () => {
    t.auth.defineOrgRole('member', [{ action: 'read', subject: 'Project', conditions: { name: { $regex: '^a' } } }]);
    const ability = inOrg(ACME, ['member']);
    const rule = ability.relevantRuleFor('read', subject('Project', { org_id: 1, name: 'abc' }))!;
    expect(t.parts.abilities.describe(rule.origin)).to.equal('org role "member", rule 1');
  });

  it('reads SERVICE_AUTH_TENANT_FIELD, and refuses a value that is no property name', async () => {
    const other = await createTestApp({ SERVICE_AUTH_TENANT_FIELD: 'tenantId' });
    try {
      other.auth.defineOrgRole('member', [{ action: 'read', subject: 'Project' }]);
      const ability = other.parts.abilities.abilityFor(ada, { org: ACME, roles: ['member'] });
      expect(ability.can('read', subject('Project', { tenantId: 1 }))).to.equal(true);
      expect(ability.can('read', subject('Project', { org_id: 1 }))).to.equal(false);
      expect(ability.can('read', subject('Organization', { id: 1 }))).to.equal(false);
    } finally {
      await other.auth.close();
    }
    let error: unknown;
    try {
      await createTestApp({ SERVICE_AUTH_TENANT_FIELD: 'org.id' });
    } catch (caught) {
      error = caught;
    }
    expect(String(error)).to.match(/SERVICE_AUTH_TENANT_FIELD/);
  });

  describe('in policy files', () => {
    let dir: string;
    beforeEach(async () => {
      dir = await mkdtemp(join(tmpdir(), 'org-roles-'));
    });
    afterEach(() => rm(dir, { recursive: true, force: true }));

    const file = async (name: string, content: unknown) => {
      const path = join(dir, name);
      await writeFile(path, JSON.stringify(content));
      return path;
    };

    it('reads { roles, orgRoles } beside the plain map of global roles, in one directory', async () => {
      await file('a.json', { reader: [{ action: 'read', subject: 'Report' }] });
      await file('b.json', {
        roles: { auditor: [{ action: 'read', subject: 'Log' }] },
        orgRoles: {
          viewer: [{ action: 'read', subject: 'Project' }],
          member: { includes: ['viewer'], rules: [{ action: 'create', subject: 'Task' }] },
        },
      });
      await file('c.json', { orgRoles: { owner: [{ action: 'manage', subject: 'all' }] } });
      expect(t.auth.loadPolicies(dir)).to.deep.equal(['reader', 'auditor']);
      expect(t.parts.orgRoles.names()).to.deep.equal(['viewer', 'member', 'owner']);
      const ability = inOrg(ACME, ['member']);
      expect(ability.can('read', subject('Project', { org_id: 1 }))).to.equal(true);
      expect(ability.can('create', subject('Task', { org_id: 1 }))).to.equal(true);
      // A global role named "roles" in the plain form holds a list: still a global role.
      await file('d.json', { roles: [{ action: 'read', subject: 'Roles' }] });
      expect(t.auth.loadPolicies(join(dir, 'd.json'))).to.deep.equal(['roles']);
    });

    it('refuses a scope that is not { description, rules }, unknown keys beside roles, orgRoles and scopes, and ${org.*} in global roles, naming file and JSON path', async () => {
      const scopes = await file('scopes.json', { roles: {}, scopes: { 'notes:read': [] } });
      expect(() => t.auth.loadPolicies(scopes)).to.throw(
        TypeError,
        `${scopes}: $.scopes["notes:read"]: must be { "description": "…", "rules": [rules] }`,
      );
      const wrong = await file('wrong.json', { orgRoles: { viewer: [{ action: 'read' }] } });
      expect(() => t.auth.loadPolicies(wrong)).to.throw(
        TypeError,
        `${wrong}: $.orgRoles.viewer[0].subject: must be a string or a list of strings`,
      );
      const placeholder = await file('placeholder.json', {
        roles: { x: [{ action: 'read', subject: 'A', conditions: { org_id: '${org.id}' } }] },
      });
      expect(() => t.auth.loadPolicies(placeholder)).to.throw(
        TypeError,
        /\$\.roles\.x\[0\]\.conditions: \$\{org\.id\} is for organization roles only/,
      );
      const cycle = await file('cycle.json', {
        orgRoles: { a: { includes: ['b'], rules: [] }, b: { includes: ['a'], rules: [] } },
      });
      expect(() => t.auth.loadPolicies(cycle)).to.throw(
        TypeError,
        `${cycle}: org role "b" would include itself: b -> a -> b`,
      );
    });
  });
});
