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
import { createTestApp, type TestApp } from '../helpers/app.js';
import { createPostgresDatabase, describePostgres } from '../helpers/services.js';
import { openGraph, storeGraph, type Graph } from '../helpers/task-graph.js';
import { relationCase, tasksAllowed, tasksWhere, type RelationCase } from './relation-rules.js';

async function check(t: TestApp, orm: MikroORM, { roles, user, action, graph }: RelationCase): Promise<void> {
  for (const role of roles) t.auth.defineRole(role.name, role.rules, { includes: role.includes });
  const ability = t.auth.abilityFor(user);
  const filter = t.auth.accessibleBy(user, action, 'Task', { em: orm.em });
  await storeGraph(orm, graph);
  const where = `filter ${JSON.stringify(filter)}`;
  expect(await tasksWhere(orm, filter), where).to.deep.equal(await tasksAllowed(orm, ability, action));
  expect(await tasksWhere(orm, { $or: [filter, { done: true }] }), `${where} or done: true`).to.deep.equal(await tasksAllowed(orm, ability, action, (task) => task.done === true));
}

/**
 * Tasks 1-5: no project; a project (1) without members; an archived project (2) whose members are
 * users 1 and 2; a project (3) with one member, user 2, a lead; a project (4) with a member whose
 * user_id is NULL, and user 3.
 */
const GRAPH: Graph = {
  projects: [
    { id: 1, archived: false, score: 1, members: [] },
    { id: 2, archived: true, score: null, members: [{ user_id: 1, role: 'dev' }, { user_id: 2, role: null }] },
    { id: 3, archived: null, score: -1, members: [{ user_id: 2, role: 'lead' }] },
    { id: 4, archived: false, score: 2, members: [{ user_id: null, role: 'dev' }, { user_id: 3, role: 'lead' }] },
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

function relationSuite(open: () => Promise<{ url?: string; drop(): Promise<void> }>): void {
  let t: TestApp;
  let orm: MikroORM | undefined;
  let drop: (() => Promise<void>) | undefined;
  before(async () => {
    t = await createTestApp();
    const database = await open();
    drop = database.drop;
    orm = await openGraph(database.url);
  });
  after(async () => {
    await orm?.close();
    await drop?.();
    await t.auth.close();
  });

  /** The tasks of GRAPH the filter selects for ada, checked against the ability too. */
  const selected = async (...rules: RoleRule[]) => {
    t.auth.defineRole('unit', rules);
    await storeGraph(orm!, GRAPH);
    const ids = await tasksWhere(orm!, t.auth.accessibleBy(ada, 'read', 'Task', { em: orm!.em }));
    expect(ids, 'the ability').to.deep.equal(await tasksAllowed(orm!, t.auth.abilityFor(ada), 'read'));
    return ids;
  };
  const read = (conditions: Record<string, unknown>, inverted = false): RoleRule => ({ action: 'read', subject: 'Task', conditions, ...(inverted && { inverted }) });
  const everything: RoleRule = { action: 'read', subject: 'Task' };

  it('selects exactly the tasks the ability allows: generated graphs and rules through project and project.members', async () => {
    await fc.assert(
      fc.asyncProperty(relationCase(), (c) => check(t, orm!, c)),
      { numRuns: 50 },
    );
  });

  it('a to-many path matches when SOME element matches; $ne, $nin and $not when NONE does (an empty list or no project included)', async () => {
    expect(await selected(read({ 'project.members.user_id': '${user.id}' }))).to.deep.equal([3]);
    expect(await selected(read({ 'project.members.user_id': { $ne: 2 } })), 'no member is user 2').to.deep.equal([1, 2, 5]);
    expect(await selected(read({ 'project.members.user_id': { $nin: [1, 3] } }))).to.deep.equal([1, 2, 4]);
    expect(await selected(read({ 'project.members.user_id': { $not: { $gt: 2 } } }))).to.deep.equal([1, 2, 3, 4]);
    expect(await selected(read({ 'project.members.user_id': null })), 'a member whose user_id is NULL').to.deep.equal([5]);
  });

  it('an inverted rule through a to-many path refuses when some element matches', async () => {
    expect(await selected(everything, read({ 'project.members.user_id': 2 }, true))).to.deep.equal([1, 2, 5]);
    expect(await selected(everything, read({ 'project.members.role': { $ne: 'dev' } }, true)), 'refused unless a member is a dev').to.deep.equal([3, 5]);
  });

  it('separate tests on a to-many path may match different elements; $elemMatch asks for one element', async () => {
    expect(await selected(read({ 'project.members.user_id': 2, 'project.members.role': 'dev' }))).to.deep.equal([3]);
    expect(await selected(read({ 'project.members': { $elemMatch: { user_id: 2, role: 'dev' } } }))).to.deep.equal([]);
    expect(await selected(read({ 'project.members': { $elemMatch: { user_id: { $gte: 2 }, role: 'lead' } } }))).to.deep.equal([4, 5]);
    expect(await selected(read({ 'project.members': { $elemMatch: {} } })), 'any member').to.deep.equal([3, 4, 5]);
    expect(await selected(everything, read({ 'project.members': { $elemMatch: { role: 'lead' } } }, true))).to.deep.equal([1, 2, 3]);
  });

  it('a NULL to-one relation: $eq and $in miss it, $ne and $nin match it, $lt and $lte match it whatever the bound (CASL compares undefined)', async () => {
    expect(await selected(read({ 'project.archived': false }))).to.deep.equal([2, 5]);
    expect(await selected(read({ 'project.archived': null })), 'a project whose archived is NULL, not a missing project').to.deep.equal([4]);
    expect(await selected(read({ 'project.archived': { $ne: true } }))).to.deep.equal([1, 2, 4, 5]);
    expect(await selected(read({ 'project.archived': { $ne: null } }))).to.deep.equal([1, 2, 3, 5]);
    expect(await selected(read({ 'project.score': { $lt: -5 } }))).to.deep.equal([1]);
    expect(await selected(read({ 'project.score': { $gt: -5 } })), 'NULL score is compared as 0').to.deep.equal([2, 3, 4, 5]);
    expect(await selected(read({ 'project.members.user_id': { $lt: -1 } })), 'no project: undefined; no members: nothing to compare').to.deep.equal([1]);
    expect(await selected(everything, read({ 'project.archived': true }, true))).to.deep.equal([1, 2, 4, 5]);
  });
}

describe('accessibleBy through relations selects the tasks CASL allows [SQLite]', () => {
  relationSuite(async () => ({ drop: async () => {} }));
});

describePostgres('accessibleBy through relations selects the tasks CASL allows', () => {
  relationSuite(createPostgresDatabase);
});
