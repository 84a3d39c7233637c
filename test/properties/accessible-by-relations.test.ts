/**
 * Rules that follow relations keep CASL's meaning in `accessibleBy(user, action, 'Task', { em })`
 * (CONTRACT-3 §21): for generated task → project → members graphs (NULL projects, empty and
 * larger member lists, NULL columns) and generated rules over their paths, `em.find` with the
 * filter returns exactly the tasks `can` allows on the loaded graph, alone and within an `$or`
 * (where an inner join would drop the rows of the other branch). On SQLite, and on PostgreSQL when
 * SERVICE_AUTH_TEST_DATABASE_URL is set. Then the fixed cases, each a counterexample the property
 * found or a meaning worth stating, and what is refused.
 */
import { expect } from 'chai';
import type { MikroORM } from '@mikro-orm/core';
import fc from 'fast-check';
import type { RoleRule } from '../../src/authorization/role-rules.js';
import { createTestApp, PASSWORD, type TestApp } from '../helpers/app.js';
import { createPostgresDatabase, describePostgres } from '../helpers/services.js';
import { appAndTables, defineRoles, expectSameIds, inMemory, type OpenDatabase } from './database-suite.js';
import { openGraph, storeGraph, Task, type Graph } from '../helpers/task-graph.js';
import { relationCase, tasksAllowed, tasksWhere, type RelationCase } from './relation-rules.js';

async function check(t: TestApp, orm: MikroORM, { roles, user, action, graph }: RelationCase): Promise<void> {
  defineRoles(t, { action: ['read', 'update'], subject: 'Task' }, roles);
  const ability = t.auth.abilityFor(user);
  const filter = t.auth.accessibleBy(user, action, 'Task', { em: orm.em });
  await storeGraph(orm, graph);
  const where = `filter ${JSON.stringify(filter)}`;
  await expectSameIds(where, tasksWhere(orm, filter), tasksAllowed(orm, ability, action));
  await expectSameIds(
    `${where} or done: true`,
    tasksWhere(orm, { $or: [filter, { done: true }] }),
    tasksAllowed(orm, ability, action, (task) => task.done === true),
  );
}

/**
 * Tasks 1-5: no project; a project (1) without members; an archived project (2) whose members are
 * users 1 and 2; a project (3) with one member, user 2, a lead; a project (4) with a member whose
 * user_id is NULL, and user 3.
 */
const GRAPH: Graph = {
  projects: [
    { id: 1, archived: false, score: 1, members: [] },
    {
      id: 2,
      archived: true,
      score: null,
      members: [
        { user_id: 1, role: 'dev' },
        { user_id: 2, role: null },
      ],
    },
    { id: 3, archived: null, score: -1, members: [{ user_id: 2, role: 'lead' }] },
    {
      id: 4,
      archived: false,
      score: 2,
      members: [
        { user_id: null, role: 'dev' },
        { user_id: 3, role: 'lead' },
      ],
    },
  ],
  tasks: [
    { id: 1, done: false, project: null },
    { id: 2, done: true, project: 1 },
    { id: 3, done: null, project: 2 },
    { id: 4, done: false, project: 3 },
    { id: 5, done: false, project: 4 },
  ],
};
const ada = { id: 1, email: 'ada@example.com', is_admin: false, roles: ['unit'] };

function relationSuite(open: OpenDatabase): void {
  let t: TestApp;
  let orm: MikroORM;
  appAndTables({ open, tables: openGraph, ready: (suite) => ({ t, orm } = suite) });

  /** The tasks of GRAPH the filter selects for ada, checked against the ability too. */
  const selected = async (...rules: RoleRule[]) => {
    t.auth.defineRole('unit', rules);
    await storeGraph(orm, GRAPH);
    const ids = await tasksWhere(orm, t.auth.accessibleBy(ada, 'read', 'Task', { em: orm.em }));
    expect(ids, 'the ability').to.deep.equal(await tasksAllowed(orm, t.auth.abilityFor(ada), 'read'));
    return ids;
  };
  const read = (conditions: Record<string, unknown>, inverted = false): RoleRule => ({
    action: 'read',
    subject: 'Task',
    conditions,
    ...(inverted && { inverted }),
  });
  const everything: RoleRule = { action: 'read', subject: 'Task' };

  it('selects exactly the tasks the ability allows: generated graphs and rules through project and project.members', async () => {
    await fc.assert(
      fc.asyncProperty(relationCase(), (c) => check(t, orm, c)),
      { numRuns: 40 },
    );
  });

  it('selects exactly the tasks the ability allows with many refusals interleaved with grants, through $elemMatch and to-many paths', async () => {
    await fc.assert(
      fc.asyncProperty(relationCase({ manyRefusals: true }), (c) => check(t, orm, c)),
      { numRuns: 25 },
    );
  });

  it('writes each refusal once however many grants it bounds: 40 grants under 8 inverted $elemMatch rules', async () => {
    const grants = Array.from({ length: 40 }, (_, k) => read({ 'project.score': k - 20, done: k % 2 === 0 }));
    const refusals = Array.from({ length: 8 }, (_, k) =>
      read({ 'project.members': { $elemMatch: { user_id: k, role: 'lead' } } }, true),
    );
    t.auth.defineRole('unit', [...grants, ...refusals]);
    const filter = JSON.stringify(t.auth.accessibleBy(ada, 'read', 'Task', { em: orm.em }));
    // One `$none` per refusal (CASL's rulesToAST wrote each under every grant: 320), one join per grant.
    expect(filter.match(/\$none/g)).to.have.length(8);
    expect(filter.length, filter).to.be.below(8_000);
    await storeGraph(orm, GRAPH);
    expect(await tasksWhere(orm, JSON.parse(filter))).to.deep.equal(
      await tasksAllowed(orm, t.auth.abilityFor(ada), 'read'),
    );
  });

  it('a to-many path matches when SOME element matches; $ne, $nin and $not when NONE does (an empty list or no project included)', async () => {
    expect(await selected(read({ 'project.members.user_id': '${user.id}' }))).to.deep.equal([3]);
    expect(await selected(read({ 'project.members.user_id': { $ne: 2 } })), 'no member is user 2').to.deep.equal([
      1, 2, 5,
    ]);
    expect(await selected(read({ 'project.members.user_id': { $nin: [1, 3] } }))).to.deep.equal([1, 2, 4]);
    expect(await selected(read({ 'project.members.user_id': { $not: { $gt: 2 } } }))).to.deep.equal([1, 2, 3, 4]);
    expect(await selected(read({ 'project.members.user_id': null })), 'a member whose user_id is NULL').to.deep.equal([
      5,
    ]);
  });

  it('an inverted rule through a to-many path refuses when some element matches', async () => {
    expect(await selected(everything, read({ 'project.members.user_id': 2 }, true))).to.deep.equal([1, 2, 5]);
    expect(
      await selected(everything, read({ 'project.members.role': { $ne: 'dev' } }, true)),
      'refused unless a member is a dev',
    ).to.deep.equal([3, 5]);
  });

  it('separate tests on a to-many path may match different elements; $elemMatch asks for one element', async () => {
    expect(await selected(read({ 'project.members.user_id': 2, 'project.members.role': 'dev' }))).to.deep.equal([3]);
    expect(await selected(read({ 'project.members': { $elemMatch: { user_id: 2, role: 'dev' } } }))).to.deep.equal([]);
    expect(
      await selected(read({ 'project.members': { $elemMatch: { user_id: { $gte: 2 }, role: 'lead' } } })),
    ).to.deep.equal([4, 5]);
    expect(await selected(read({ 'project.members': { $elemMatch: {} } })), 'any member').to.deep.equal([3, 4, 5]);
    expect(
      await selected(everything, read({ 'project.members': { $elemMatch: { role: 'lead' } } }, true)),
    ).to.deep.equal([1, 2, 3]);
  });

  it('a NULL to-one relation: $eq, $in and the order operators miss it, $ne and $nin match it (nothing is compared)', async () => {
    expect(await selected(read({ 'project.archived': false }))).to.deep.equal([2, 5]);
    expect(
      await selected(read({ 'project.archived': null })),
      'a project whose archived is NULL, not a missing project',
    ).to.deep.equal([4]);
    expect(await selected(read({ 'project.archived': { $ne: true } }))).to.deep.equal([1, 2, 4, 5]);
    expect(await selected(read({ 'project.archived': { $ne: null } }))).to.deep.equal([1, 2, 3, 5]);
    expect(await selected(read({ 'project.score': { $lt: -5 } }))).to.deep.equal([]);
    expect(
      await selected(read({ 'project.score': { $not: { $lt: -5 } } })),
      'no project: the negation holds',
    ).to.deep.equal([1, 2, 3, 4, 5]);
    expect(await selected(read({ 'project.score': { $gt: -5 } })), 'a NULL score is not ordered').to.deep.equal([
      2, 4, 5,
    ]);
    expect(
      await selected(read({ 'project.members.user_id': { $lt: -1 } })),
      'no project, or no members: nothing to compare',
    ).to.deep.equal([]);
    expect(await selected(everything, read({ 'project.archived': true }, true))).to.deep.equal([1, 2, 4, 5]);
  });
}

describe('accessibleBy through relations selects the tasks CASL allows [SQLite]', () => {
  relationSuite(inMemory);
});

describePostgres('accessibleBy through relations selects the tasks CASL allows', () => {
  relationSuite(createPostgresDatabase);
});

describe('rules that follow relations: what is refused, naming the role and rule', () => {
  let t: TestApp;
  let orm: MikroORM;
  before(async () => {
    orm = await openGraph();
  });
  after(() => orm.close());
  beforeEach(async () => {
    t = await createTestApp();
  });
  afterEach(() => t.auth.close());

  const ada = { id: 1, email: 'ada@example.com', is_admin: false, roles: ['x'] };
  /** A role "x" whose second rule has `conditions`: accessibleBy (with `em`, unless told) throws, naming it, and saying `why`. */
  const expectRefused = (conditions: Record<string, unknown>, why: RegExp, options: object = { em: orm.em }) => {
    t.auth.defineRole('x', [
      { action: 'read', subject: 'Task', conditions: { done: true } },
      { action: 'read', subject: 'Task', conditions },
    ]);
    expect(() => t.auth.accessibleBy(ada, 'read', 'Task', options), JSON.stringify(conditions))
      .to.throw(TypeError, /role "x", rule 2/)
      .that.satisfies((error: Error) => why.test(error.message));
  };

  it('a dotted path or $elemMatch without the metadata: { em } is needed to tell a relation from a column', () => {
    expectRefused(
      { 'project.archived': false },
      /dotted paths through relations need the entity's metadata \(pass \{ em \}\)/,
      {},
    );
    expectRefused({ 'project.members': { $elemMatch: { user_id: 1 } } }, /pass \{ em \}/, {});
  });

  it('a path that ends at a relation, goes through a column, or names what the entity does not have', () => {
    expectRefused(
      { project: 1 },
      /"project" \(on Task\) names a relation, not a column: compare a property through it, such as "project.id"/,
    );
    expectRefused({ 'project.members.user_id.x': 1 }, /"user_id" is no relation of Member/);
    expectRefused({ 'project.nope': 1 }, /Project has no column "nope"/);
    expectRefused({ 'done.x': 1 }, /"done" is no relation of Task/);
    expectRefused({ nope: 1 }, /Task has no column "nope"/);
  });

  it('$elemMatch on a to-one relation or a column', () => {
    expectRefused({ project: { $elemMatch: { archived: false } } }, /\$elemMatch takes a path to a to-many relation/);
    expectRefused({ done: { $elemMatch: { $eq: true } } }, /\$elemMatch takes a path to a to-many relation/);
    expectRefused({ 'project.members': { $elemMatch: { $eq: 1 } } }, /is not a property name/);
  });

  it('what has no SQL form on a column has none through a relation either', () => {
    expectRefused({ 'project.members.role': { $regex: '^l' } }, /\$regex has no SQL form/);
    expectRefused(
      { 'project.members.role': { $lt: 'm' } },
      /\$lt on "project.members.role" \(Member.role, a string column\): the order operators compare numbers and dates only/,
    );
  });

  it('finds the entity by the subject type, or by { entity }', () => {
    t.auth.defineRole('x', [{ action: 'read', subject: 'Job', conditions: { 'project.archived': false } }]);
    expect(() => t.auth.accessibleBy(ada, 'read', 'Job', { em: orm.em })).to.throw(
      TypeError,
      /knows no entity named "Job" \(pass \{ entity \}/,
    );
    expect(t.auth.accessibleBy(ada, 'read', 'Job', { em: orm.em, entity: Task })).to.deep.equal({
      project: { $and: [{ id: { $ne: null } }, { archived: false }] },
    });
  });

  it('refuses, when the role is defined, a path through more than four relations or with an empty segment', () => {
    const define = (conditions: Record<string, unknown>) => () =>
      t.auth.defineRole('x', [{ action: 'read', subject: 'Task', conditions }]);
    expect(define({ 'a.b.c.d.e': 1 })).not.to.throw();
    expect(define({ 'a.b.c.d.e.f': 1 })).to.throw(
      TypeError,
      /role "x", rule 1: "conditions": the path "a\.b\.c\.d\.e\.f" follows 5 relations; at most 4/,
    );
    expect(define({ $or: [{ done: true }, { 'a.b.c.d.e.f': { $ne: 1 } }] })).to.throw(TypeError, /follows 5 relations/);
    expect(define({ 'a.b': { $elemMatch: { 'c.d': { $elemMatch: { e: 1 } } } } })).not.to.throw();
    expect(define({ 'a.b': { $elemMatch: { 'c.d': { $elemMatch: { 'e.f': 1 } } } } })).to.throw(
      TypeError,
      /the path "a\.b\.c\.d\.e\.f" follows 5 relations/,
    );
    expect(define({ 'a.b.c': { $not: { $elemMatch: { 'd.e.f': 1 } } } })).to.throw(TypeError, /follows 5 relations/);
    expect(define({ 'project..id': 1 })).to.throw(TypeError, /the path "project\.\.id" has an empty segment/);
  });
});

describe('rules that follow relations in an organization', () => {
  it('accessibleBy(…, { em, org }): the tenant condition beside a path through project.members', async () => {
    const t = await createTestApp();
    const orm = await openGraph();
    try {
      const ada = await t.auth.users.create({ email: 'ada@example.com', password: PASSWORD });
      const owner = await t.auth.users.create({ email: 'owner@example.com', password: PASSWORD });
      t.auth.defineOrgRole('owner', []);
      t.auth.defineOrgRole('member', [
        { action: 'read', subject: 'Task', conditions: { 'project.members.user_id': '${user.id}' } },
      ]);
      const acme = await t.auth.orgs.create({ name: 'acme', slug: 'acme', owner: owner.id });
      const other = await t.auth.orgs.create({ name: 'other', slug: 'other', owner: owner.id });
      await t.auth.orgs.addMember(acme.id, ada.id, ['member']);
      await storeGraph(orm, {
        projects: [
          { id: 1, archived: false, score: null, members: [{ user_id: ada.id, role: null }] },
          { id: 2, archived: false, score: null, members: [] },
        ],
        tasks: [
          { id: 1, done: false, project: 1, org_id: acme.id },
          { id: 2, done: false, project: 1, org_id: other.id },
          { id: 3, done: false, project: 2, org_id: acme.id },
          { id: 4, done: false, project: null, org_id: acme.id },
        ],
      });
      const filter = await t.auth.accessibleBy(ada, 'read', 'Task', { em: orm.em, org: acme.id });
      expect(await tasksWhere(orm, filter)).to.deep.equal([1]);
    } finally {
      await orm.close();
      await t.auth.close();
    }
  });
});
