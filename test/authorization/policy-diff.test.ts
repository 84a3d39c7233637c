/**
 * Policy diff (CONTRACT-3 §22) on hand-written cases: what each of CASL's rules of decision
 * (order, inverted rules, includes, `manage` and `all`, fields, the tenant condition, null and
 * absent fields, dotted paths, placeholders) makes of a change, with the witness checked by `can`.
 * The generated cases are in test/properties/policy-diff.test.ts.
 */
import { createMongoAbility, subject as asSubject } from '@casl/ability';
import { defineEntity } from '@mikro-orm/core';
import { expect } from 'chai';
import {
  diffPolicies,
  type PolicyChange,
  type PolicyDiff,
  type PolicySet,
} from '../../src/authorization/analysis/diff.js';
import { policySetOf } from '../../src/authorization/analysis/policy-sets.js';
import { entityRelations } from '../../src/authorization/analysis/entities.js';
import { kindsFor, type EntityRelations, type PropertyKind } from '../../src/authorization/analysis/relations.js';
import { conditionsMatcher } from '../../src/authorization/conditions.js';
import { toPrincipal } from '../../src/authorization/principal.js';
import { createTestApp } from '../helpers/app.js';

type File = Record<string, unknown>;

function diff(before: File, after: File, relations?: EntityRelations): PolicyDiff & { sides: [PolicySet, PolicySet] } {
  const sides: [PolicySet, PolicySet] = [policySetOf(before), policySetOf(after)];
  return { ...diffPolicies(...sides, relations), sides };
}

/** Post's `project` is to-one, and a project's `members` to-many. */
const RELATIONS: EntityRelations = new Map([
  ['Post', new Map([['project', { kind: 'one', target: 'Project' }]])],
  [
    'Project',
    new Map<string, PropertyKind>([
      ['members', { kind: 'many', target: 'Member' }],
      ['archived', { kind: 'scalar' }],
    ]),
  ],
]);

/** What `can` says of the witness on each side. */
function decisions(sides: [PolicySet, PolicySet], change: PolicyChange): boolean[] {
  const field = change.fields === null ? undefined : change.fields[0] === '*' ? 'unnamed' : change.fields[0];
  return sides.map((set) => {
    const user = toPrincipal({ ...change.witness.user, roles: change.role ? [change.role] : [] });
    const rules = change.role
      ? set.roles.rulesFor(user)
      : set.orgRoles.rulesIn(user, change.witness.org!, [change.org_role!]);
    return createMongoAbility(rules, { conditionsMatcher }).can(
      change.action,
      asSubject(change.subject, structuredClone(change.witness.subject)),
      field,
    );
  });
}

/** The changes as `+ action subject [fields]`, each witness checked on both sides. */
function summary(before: File, after: File, relations?: EntityRelations): string[] {
  const { changes, sides } = diff(before, after, relations);
  return changes.map((change) => {
    expect(decisions(sides, change), JSON.stringify(change)).to.deep.equal(
      change.change === 'grant' ? [false, true] : [true, false],
    );
    const who = change.role ?? `org:${change.org_role}`;
    return `${who} ${change.change === 'grant' ? '+' : '-'} ${change.action} ${change.subject}${change.fields ? ` [${change.fields.join(',')}]` : ''}`;
  });
}

const read = (conditions?: object, more: object = {}) => ({
  action: 'read',
  subject: 'Post',
  ...(conditions && { conditions }),
  ...more,
});

describe('policy diff', () => {
  it('reports no change for the same policies, and for conditions written otherwise that decide alike', () => {
    expect(summary({ r: [read({ n: { $gt: 3 } })] }, { r: [read({ n: { $gte: 3, $ne: 3 } })] })).to.deep.equal([]);
    // A null is not ordered (comparisons are strict by type): "not at most 3" holds for it, "above 3" does not.
    expect(summary({ r: [read({ n: { $gt: 3 } })] }, { r: [read({ $nor: [{ n: { $lte: 3 } }] })] })).to.deep.equal([
      'r + read Post',
    ]);
    expect(
      summary({ r: [read({ s: { $in: ['a', 'b'] } })] }, { r: [read({ $or: [{ s: 'a' }, { s: 'b' }] })] }),
    ).to.deep.equal([]);
    expect(summary({ r: [read({ s: { $ne: 'a' } })] }, { r: [read({ s: { $not: { $eq: 'a' } } })] })).to.deep.equal([]);
  });

  it('finds the boundary a bound moves across, and says which way', () => {
    const { changes } = diff({ r: [read({ n: { $gt: 3 } })] }, { r: [read({ n: { $gte: 3 } })] });
    expect(changes).to.have.length(1);
    expect(changes[0]).to.deep.include({
      role: 'r',
      org_role: null,
      action: 'read',
      subject: 'Post',
      fields: null,
      change: 'grant',
    });
    expect(changes[0]!.witness.subject).to.deep.equal({ n: 3 });
    expect(summary({ r: [read({ n: { $gte: 3 } })] }, { r: [read({ n: { $gt: 3 } })] })).to.deep.equal([
      'r - read Post',
    ]);
  });

  it('follows CASL: a later rule wins, so moving a refusal before the grant it limited grants', () => {
    const grant = read();
    const refusal = read({ draft: true }, { inverted: true });
    const { changes } = diff({ r: [grant, refusal] }, { r: [refusal, grant] });
    expect(changes.map((change) => [change.change, change.witness.subject])).to.deep.equal([
      ['grant', { draft: true }],
    ]);
  });

  it('reports a change in an included role for every role that includes it, and lets the including role take away', () => {
    const before = {
      viewer: [read()],
      editor: { includes: ['viewer'], rules: [read({ secret: true }, { inverted: true })] },
    };
    const after = {
      viewer: [read({ published: true })],
      editor: { includes: ['viewer'], rules: [read({ secret: true }, { inverted: true })] },
    };
    expect(summary(before, after)).to.deep.equal(['editor - read Post', 'viewer - read Post']);
    const witness = diff(before, after).changes[0]!.witness.subject;
    expect(witness['secret'], 'a secret post was refused before too').to.not.equal(true);
  });

  it('reads manage as every action and all as every subject type: the others are reported as manage and all', () => {
    // Other subject types were denied (no rule) and still are (a refusal only): no change for `all`.
    expect(
      summary({ r: [{ action: 'manage', subject: 'all' }] }, { r: [{ action: 'manage', subject: 'Post' }] }),
    ).to.deep.equal(['r - manage all']);
    expect(
      summary({ r: [{ action: 'manage', subject: 'Post' }] }, { r: [{ action: 'read', subject: 'Post' }] }),
    ).to.deep.equal(['r - manage Post']);
    expect(
      summary(
        { r: [read()] },
        { r: [read(), { action: 'read', subject: 'all', inverted: true, conditions: { hidden: true } }] },
      ),
    ).to.deep.equal(['r - read Post']);
  });

  it('reports a change in which fields are allowed, by field; * for the fields no rule names', () => {
    expect(
      summary({ r: [read(undefined, { fields: ['title'] })] }, { r: [read(undefined, { fields: ['title', 'body'] })] }),
    ).to.deep.equal(['r + read Post [body]']);
    expect(summary({ r: [read()] }, { r: [read(undefined, { fields: ['title'] })] })).to.deep.equal([
      'r - read Post [*]',
    ]);
    expect(
      summary({ r: [read(), read(undefined, { fields: ['secret'], inverted: true })] }, { r: [read()] }),
    ).to.deep.equal(['r + read Post [secret]']);
  });

  it('binds organization roles to their organization: a witness belongs to it', () => {
    const { changes } = diff(
      { orgRoles: { member: [] } },
      { orgRoles: { member: [{ action: 'read', subject: 'Task' }] } },
    );
    expect(changes).to.have.length(1);
    const [change] = changes;
    expect(change).to.deep.include({
      role: null,
      org_role: 'member',
      action: 'read',
      subject: 'Task',
      change: 'grant',
    });
    expect(change!.witness.subject['org_id']).to.equal(change!.witness.org!.id);
    expect(
      summary({ orgRoles: { member: [] } }, { orgRoles: { member: [{ action: 'read', subject: 'Organization' }] } }),
    ).to.deep.equal(['org:member + read Organization']);
  });

  it('decides null and absent fields as CASL does: $ne true also allows a subject without the field', () => {
    const { changes } = diff({ r: [read({ archived: false })] }, { r: [read({ archived: { $ne: true } })] });
    expect(changes).to.have.length(1);
    expect([true, false]).to.not.include(changes[0]!.witness.subject['archived']);
    expect(
      summary(
        { r: [read({ archived: null })] },
        { r: [read({ $or: [{ archived: null }, { archived: { $exists: false } }] })] },
      ),
      'beyond the fragment: not analysed',
    ).to.deep.equal([]);
    expect(
      diff(
        { r: [read({ archived: null })] },
        { r: [read({ $or: [{ archived: null }, { archived: { $exists: false } }] })] },
      ).not_analysed,
    ).to.have.length(1);
  });

  it('follows dotted paths, a missing relation included', () => {
    const { changes, sides } = diff(
      { r: [read({ 'project.archived': false })] },
      { r: [read({ 'project.archived': { $ne: true } })] },
      RELATIONS,
    );
    expect(changes).to.have.length(1);
    expect(changes[0]!.witness.subject['project'], 'to-one: an object or null').to.not.be.an('array');
    expect(decisions(sides, changes[0]!)).to.deep.equal([false, true]);
    expect(
      summary(
        { r: [read({ 'project.archived': false, 'project.id': 3 })] },
        { r: [read({ project: { $ne: null }, 'project.archived': false, 'project.id': 3 })] },
      ),
    ).to.deep.equal([]);
  });

  it('reads a to-many path as CASL does: some element; a negation, no element; two conditions, two elements', () => {
    const member = (conditions: object) => read({ 'project.members.user_id': '${user.id}', ...conditions });
    // $ne through a to-many path is "no member is the user": not "some member is not".
    expect(
      summary(
        { r: [read({ 'project.members.user_id': { $ne: '${user.id}' } })] },
        { r: [read({ $nor: [{ 'project.members.user_id': '${user.id}' }] })] },
        RELATIONS,
      ),
    ).to.deep.equal([]);
    // Two conditions on one to-many path may be met by two members.
    const { changes, sides } = diff(
      { r: [member({ 'project.members.role': 'lead', $nor: [{ 'project.members.role': 'guest' }] })] },
      { r: [read({ 'project.members.user_id': '${user.id}' })] },
      RELATIONS,
    );
    expect(changes.map(({ change }) => change)).to.deep.equal(['grant']);
    const members = (changes[0]!.witness.subject['project'] as { members: unknown[] }).members;
    expect(members, 'an array: a real project').to.be.an('array');
    expect(decisions(sides, changes[0]!)).to.deep.equal([false, true]);
    const lead = diff(
      { r: [read({ 'project.members.role': 'lead', 'project.members.user_id': '${user.id}' })] },
      { r: [read({ 'project.members.user_id': '${user.id}', 'project.members.role': { $in: ['lead'] } })] },
      RELATIONS,
    );
    expect(lead.changes).to.deep.equal([]);
    // An empty collection: $nin holds (no member is in the list), $in does not.
    const empty = diff({ r: [read({ 'project.members.user_id': { $nin: [1] } })] }, { r: [] }, RELATIONS);
    expect(empty.changes[0]!.witness.subject).to.deep.equal({ project: { members: [] } });
    expect(decisions(empty.sides, empty.changes[0]!)).to.deep.equal([true, false]);
  });

  it("takes the relations' kinds from MikroORM's metadata: the demo's entity schemas", async () => {
    const { ENTITIES } = await import('../../demo/entities/index.js');
    const kinds = kindsFor(entityRelations(ENTITIES), 'Task');
    expect(['project', 'project.members', 'project.members.user_id', 'title', 'nowhere.x'].map(kinds)).to.deep.equal([
      'one',
      'many',
      'unknown',
      'unknown',
      'unknown',
    ]);
    expect(kindsFor(entityRelations(ENTITIES), 'all')('project')).to.equal('unknown');
  });

  it("gives each field a value of its column's type with the entities: a number, a list, a date; an attribute, that of its columns", () => {
    const p = defineEntity.properties;
    const properties = {
      ...{ id: p.integer().primary(), amount: p.integer(), note: p.text().nullable() },
      ...{ paid: p.boolean(), tags: p.array(), due: p.datetime() },
    };
    const relations = entityRelations([defineEntity({ name: 'Invoice', properties })]);
    const rule = (action: string, conditions: object) => ({ action, subject: 'Invoice', conditions });
    const clerk = [
      rule('approve', { amount: { $gt: '${user.limit}' }, tags: { $in: ['a', 'b'] } }),
      rule('delete', { due: { $ne: null } }),
      rule('read', { note: { $ne: 'x' } }),
      rule('update', { tags: { $ne: 'urgent' }, paid: { $ne: true } }),
    ];
    const witnesses = (entities?: EntityRelations) => {
      const { changes, sides } = diff(
        { userAttributes: ['limit'], roles: {} },
        { userAttributes: ['limit'], roles: { clerk } },
        entities,
      );
      for (const change of changes)
        expect(decisions(sides, change), JSON.stringify(change)).to.deep.equal([false, true]);
      return changes.map(({ action, witness }) => ({
        action,
        subject: witness.subject,
        limit: witness.user.attributes?.['limit'],
      }));
    };
    expect(witnesses(relations)).to.deep.equal([
      { action: 'approve', subject: { amount: 2, tags: ['a'] }, limit: 1 },
      { action: 'delete', subject: { due: new Date(Date.UTC(2026, 0, 1)) }, limit: 1 },
      { action: 'read', subject: { note: 'other' }, limit: 1 },
      { action: 'update', subject: { tags: [], paid: false }, limit: 1 },
    ]);
    // Without the entities, whatever value makes the difference (a string amount, a bare tag, a number for a date).
    const untyped = [{ amount: 'other', tags: 'a' }, { due: 1 }, { note: 'other' }, { tags: 'other', paid: false }];
    expect(witnesses().map(({ subject }) => subject)).to.deep.equal(untyped);
  });

  it('without the relations, reads each step both ways: no change only when neither reading changes', () => {
    const before = { r: [read({ 'project.archived': false })] };
    const after = { r: [read({ 'project.archived': { $ne: true } })] };
    // Were project to-many, a project list with one archived and one not would be refused now.
    const { changes, sides } = diff(before, after);
    expect(changes.map(({ change }) => change)).to.deep.equal(['grant', 'revoke']);
    expect(changes[1]!.witness.subject).to.deep.equal({ project: [{ archived: false }, { archived: true }] });
    expect(decisions(sides, changes[1]!)).to.deep.equal([true, false]);
    expect(
      summary({ r: [read({ 'p.q': { $in: [1, 2] } })] }, { r: [read({ $or: [{ 'p.q': 1 }, { 'p.q': 2 }] })] }),
    ).to.deep.equal([]);
  });

  it('treats placeholders as variables, and gives their values in the witness', () => {
    const { changes } = diff(
      { r: [read({ owner_id: '${user.id}' })] },
      { r: [read({ owner_id: { $in: ['${user.id}', 3] } })] },
    );
    expect(changes).to.have.length(1);
    const { subject, user } = changes[0]!.witness;
    expect(subject['owner_id']).to.equal(3);
    expect(user.id).to.not.equal(3);
    expect(
      summary(
        { orgRoles: { m: [read({ team: '${org.slug}' })] } },
        { orgRoles: { m: [read({ team: '${org.slug}', org_id: '${org.id}' })] } },
      ),
      'the tenant condition says as much',
    ).to.deep.equal([]);
  });

  it('lists rules beyond the fragment as not analysed, unless they are the same on both sides', () => {
    const { changes, not_analysed } = diff(
      { r: [read({ title: { $regex: '^a' } })] },
      { r: [read({ title: { $regex: '^b' } })] },
    );
    expect(changes).to.deep.equal([]);
    expect(not_analysed).to.deep.equal([
      { role: 'r', org_role: null, action: 'read', subject: 'Post', reason: 'the operator $regex' },
    ]);
    const same = { r: [read({ title: { $regex: '^a' } }), { action: 'update', subject: 'Post' }] };
    expect(diff(same, { r: [...same.r, { action: 'delete', subject: 'Post' }] }).not_analysed).to.deep.equal([]);
    expect(diff({ r: [read(undefined, { fields: ['meta.*'] })] }, { r: [read()] }).not_analysed[0]?.reason).to.equal(
      'a field pattern with *',
    );
  });

  it("auth.policies.diff(a, b): paths or contents, the application's tenant field", async () => {
    const t = await createTestApp({ SERVICE_AUTH_TENANT_FIELD: 'tenant' });
    try {
      const result = t.auth.policies.diff(
        { orgRoles: { member: [] } },
        { orgRoles: { member: [{ action: 'read', subject: 'Task' }] } },
      );
      expect(result.changes[0]!.witness.subject).to.have.property('tenant', result.changes[0]!.witness.org!.id);
      expect(t.auth.policies.diff('policies/roles.json', 'policies')).to.deep.equal({ changes: [], not_analysed: [] });
      expect(() => t.auth.policies.diff({ r: [{ action: 'read' }] }, {})).to.throw(TypeError, /\$\.r\[0\]\.subject/);
    } finally {
      await t.auth.close();
    }
  });
});
