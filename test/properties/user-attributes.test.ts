/**
 * User attributes in rules (CONTRACT-3 §21), as properties over generated rules that name
 * `${user.team}` and `${user.level}` (through `project.members.role`, `project.score` and
 * `$elemMatch`, with `$ne`, `$in`, `$nin`, `$lt`, `$gte`, `$or` and inverted rules) and users who
 * have the attributes, or not (left out, or null), on generated task → project → members graphs:
 *
 * - `accessibleBy` + `em.find` selects exactly the tasks the in-memory ability allows;
 * - a missing attribute never grants: whatever a user without it may read, they may read with any
 *   value of it (a grant naming it is dropped, a refusal naming it refuses all it covers).
 *
 * On SQLite in memory. Then the fixed cases worth stating.
 */
import { expect } from 'chai';
import type { MikroORM } from '@mikro-orm/core';
import fc from 'fast-check';
import type { RoleRule } from '../../src/authorization/role-rules.js';
import { createTestApp, type TestApp } from '../helpers/app.js';
import { openGraph, storeGraph, type Graph } from '../helpers/task-graph.js';
import { tasksAllowed, tasksWhere } from './relation-rules.js';

const TEAMS = ['dev', 'lead', 'ops'] as const;
const LEVELS = [-1, 0, 1] as const;
type Attributes = { team?: string | null; level?: number | null };

/** A test that names an attribute, or one that does not. */
const leaf: fc.Arbitrary<[string, unknown]> = fc.oneof(
  fc.tuple(
    fc.constant('project.members.role'),
    fc.constantFrom<unknown>(
      '${user.team}',
      { $ne: '${user.team}' },
      { $in: ['${user.team}', 'lead'] },
      { $nin: ['${user.team}'] },
    ),
  ),
  fc.tuple(
    fc.constant('project.score'),
    fc.constantFrom<unknown>(
      '${user.level}',
      { $gte: '${user.level}' },
      { $lt: '${user.level}' },
      { $ne: '${user.level}' },
    ),
  ),
  fc.tuple(
    fc.constant('project.members'),
    fc.constantFrom<unknown>(
      { $elemMatch: { role: '${user.team}', user_id: '${user.id}' } },
      { $elemMatch: { role: { $ne: '${user.team}' } } },
    ),
  ),
  fc.tuple(fc.constant('done'), fc.boolean()),
  fc.tuple(fc.constant('project.archived'), fc.boolean()),
);

const conditions: fc.Arbitrary<Record<string, unknown>> = fc
  .tuple(fc.uniqueArray(leaf, { minLength: 1, maxLength: 2, selector: ([path]) => path }), fc.boolean())
  .map(([pairs, either]) =>
    either && pairs.length === 2 ? { $or: pairs.map((pair) => Object.fromEntries([pair])) } : Object.fromEntries(pairs),
  );

const rule: fc.Arbitrary<RoleRule> = fc
  .record({ inverted: fc.boolean(), conditions: fc.option(conditions, { nil: undefined, freq: 6 }) })
  .map(({ inverted, conditions }) => ({
    action: 'read',
    subject: 'Task',
    ...(inverted && { inverted }),
    ...(conditions && { conditions }),
  }));

/** An attribute's value: one of the domain, or missing (left out, or null). */
const value = <T>(domain: readonly T[]) => fc.oneof(fc.constantFrom(...domain), fc.constantFrom(undefined, null));

const attributes: fc.Arbitrary<Attributes> = fc.record(
  { team: value(TEAMS), level: value(LEVELS) },
  { requiredKeys: [] },
);

const graph: fc.Arbitrary<Graph> = fc
  .array(
    fc.record({
      archived: fc.option(fc.boolean(), { nil: null }),
      score: fc.option(fc.constantFrom(...LEVELS), { nil: null }),
      members: fc.array(
        fc.record({
          user_id: fc.option(fc.constantFrom(1, 2), { nil: null }),
          role: fc.option(fc.constantFrom(...TEAMS), { nil: null }),
        }),
        { maxLength: 3 },
      ),
    }),
    { minLength: 1, maxLength: 3 },
  )
  .chain((projects) =>
    fc.record({
      projects: fc.constant(projects.map((project, index) => ({ id: index + 1, ...project }))),
      tasks: fc
        .array(
          fc.record({
            done: fc.option(fc.boolean(), { nil: null }),
            project: fc.option(fc.integer({ min: 1, max: projects.length }), { nil: null }),
          }),
          { minLength: 1, maxLength: 6 },
        )
        .map((tasks) => tasks.map((task, index) => ({ id: index + 1, ...task }))),
    }),
  );

const user = (attributes: Attributes) => ({ id: 1, email: 'ada@example.com', roles: ['unit'], attributes });

/** Each way of filling the attributes the user lacks with values of the domains. */
function fillings(given: Attributes): Attributes[] {
  const teams = given.team == null ? TEAMS : [given.team];
  const levels = given.level == null ? LEVELS : [given.level];
  return teams.flatMap((team) => levels.map((level) => ({ team, level })));
}

describe('user attributes in rules: accessibleBy agrees with the ability, and a missing attribute never grants', () => {
  let t: TestApp;
  let orm: MikroORM;

  before(async () => {
    t = await createTestApp();
    t.auth.defineUserAttributes(['team', 'level']);
    orm = await openGraph();
  });
  after(async () => {
    await orm.close();
    await t.auth.close();
  });

  async function check(rules: RoleRule[], given: Attributes, tasks: Graph): Promise<void> {
    t.auth.defineRole('unit', rules);
    await storeGraph(orm, tasks);
    const ability = t.auth.abilityFor(user(given));
    const filter = t.auth.accessibleBy(user(given), 'read', 'Task', { em: orm.em });
    const allowed = await tasksAllowed(orm, ability, 'read');
    expect(await tasksWhere(orm, filter), `filter ${JSON.stringify(filter)}`).to.deep.equal(allowed);
    if (given.team != null && given.level != null) return;
    for (const filled of fillings(given)) {
      const withValues = await tasksAllowed(orm, t.auth.abilityFor(user(filled)), 'read');
      expect(withValues, `without ${JSON.stringify(given)} ⊆ with ${JSON.stringify(filled)}`).to.include.members(
        allowed,
      );
    }
  }

  it('holds for generated rules, users and graphs', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(rule, { minLength: 1, maxLength: 4 }), attributes, graph, (rules, given, tasks) =>
        check(rules, given, tasks),
      ),
      { numRuns: 60 },
    );
  });

  describe('fixed cases', () => {
    const GRAPH: Graph = {
      projects: [
        { id: 1, archived: false, score: 1, members: [{ user_id: 1, role: 'dev' }] },
        { id: 2, archived: false, score: null, members: [{ user_id: 2, role: null }] },
        { id: 3, archived: true, score: 0, members: [] },
      ],
      tasks: [
        { id: 1, done: false, project: 1 },
        { id: 2, done: false, project: 2 },
        { id: 3, done: true, project: 3 },
        { id: 4, done: null, project: null },
      ],
    };
    const read = (conditions?: Record<string, unknown>, inverted = false): RoleRule => ({
      action: 'read',
      subject: 'Task',
      ...(conditions && { conditions }),
      ...(inverted && { inverted }),
    });
    const selected = async (given: Attributes, ...rules: RoleRule[]) => {
      await check(rules, given, GRAPH);
      return tasksWhere(orm, t.auth.accessibleBy(user(given), 'read', 'Task', { em: orm.em }));
    };

    it('a grant on a missing value matches nothing, not the rows whose field is NULL, nor those $ne would', async () => {
      expect(await selected({ team: 'dev' }, read({ 'project.members.role': '${user.team}' }))).to.deep.equal([1]);
      expect(await selected({}, read({ 'project.members.role': '${user.team}' }))).to.deep.equal([]);
      expect(await selected({ team: null }, read({ 'project.members.role': '${user.team}' }))).to.deep.equal([]);
      expect(await selected({}, read({ 'project.members.role': { $ne: '${user.team}' } }))).to.deep.equal([]);
      expect(
        await selected({}, read({ done: false }), read({ 'project.score': { $lt: '${user.level}' } })),
      ).to.deep.equal([1, 2]);
    });

    it('a refusal on a missing value refuses everything it covers', async () => {
      expect(
        await selected({ level: 1 }, read(), read({ 'project.score': { $ne: '${user.level}' } }, true)),
      ).to.deep.equal([1]);
      expect(await selected({}, read(), read({ 'project.score': { $ne: '${user.level}' } }, true))).to.deep.equal([]);
      // A later grant that names no attribute still wins where it matches, as CASL orders rules.
      expect(await selected({}, read({ 'project.score': '${user.level}' }, true), read({ done: true }))).to.deep.equal([
        3,
      ]);
    });
  });
});
