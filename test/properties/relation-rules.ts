/**
 * The generator and harness of the property that rules following relations keep CASL's meaning in
 * `accessibleBy` (CONTRACT-3 §21), on the three levels of test/helpers/task-graph.ts: graphs of
 * tasks whose `project` may be NULL, projects with no, one or several `members`, members whose
 * `user_id` and `role` may be NULL. Random roles of CASL rules over the paths
 * through them (`project.archived`, `project.score`, `project.id`, `project.members.user_id`,
 * `project.members.role`, `$elemMatch` on `project.members`), with every operator the filter
 * translates, `$not`, `$and`, `$or`, `$nor` and inverted rules; and the check: the tasks `em.find`
 * returns with the filter against those `ability.can` allows on the graph as `em.find` loads it
 * (`populate: ['project.members']`). A case is plain data, so that a counterexample fast-check
 * prints can be pasted into a regression case.
 */
import { subject, type MongoAbility } from '@casl/ability';
import type { FilterQuery, MikroORM } from '@mikro-orm/core';
import fc from 'fast-check';
import type { RoleRule } from '../../src/authorization/role-rules.js';
import { Task, type Graph } from '../helpers/task-graph.js';
import { ROLE_NAMES, type Role, type User } from './access-rules.js';

export interface RelationCase {
  roles: Role[];
  user: User;
  action: string;
  graph: Graph;
}

const weighted = <T>(...choices: [number, fc.Arbitrary<T>][]) =>
  fc.oneof(...choices.map(([weight, arbitrary]) => ({ weight, arbitrary })));
const orNull = <T>(arbitrary: fc.Arbitrary<T>) => fc.option(arbitrary, { nil: null, freq: 4 });

const ROLES_OF_MEMBERS = ['lead', 'dev'] as const;
const userId = weighted<unknown>([3, fc.integer({ min: 0, max: 3 })], [2, fc.constant('${user.id}')]);
/** The paths a leaf names, with the values it compares them with, and whether they are ordered (numbers). */
const TASK_PATHS: Record<string, [fc.Arbitrary<unknown>, boolean]> = {
  done: [fc.boolean(), false],
  'project.archived': [fc.boolean(), false],
  'project.score': [fc.integer({ min: -2, max: 2 }), true],
  'project.id': [fc.integer({ min: 0, max: 3 }), true],
  'project.members.user_id': [userId, true],
  'project.members.role': [fc.constantFrom(...ROLES_OF_MEMBERS), false],
};
const MEMBER_PATHS: Record<string, [fc.Arbitrary<unknown>, boolean]> = {
  user_id: [userId, true],
  role: [fc.constantFrom(...ROLES_OF_MEMBERS), false],
};

/** A field's test: a bare value, or one or two operators, sometimes under `$not`. */
function fieldTest([value, ordered]: [fc.Arbitrary<unknown>, boolean]): fc.Arbitrary<unknown> {
  const entries: fc.Arbitrary<[string, unknown]>[] = [
    fc.tuple(fc.constantFrom('$eq', '$ne'), orNull(value)),
    fc.tuple(fc.constantFrom('$in', '$nin'), fc.array(orNull(value), { maxLength: 3 })),
  ];
  if (ordered) entries.push(fc.tuple(fc.constantFrom('$lt', '$lte', '$gt', '$gte'), value));
  const operators = fc
    .uniqueArray(fc.oneof(...entries), { minLength: 1, maxLength: 2, selector: ([name]) => name })
    .map((pairs) => Object.fromEntries(pairs));
  return weighted<unknown>([2, orNull(value)], [4, operators], [1, operators.map((negated) => ({ $not: negated }))]);
}

/** Tests of some of `paths` (none at times: every row), and sometimes `$and`, `$or` or `$nor` of more. */
function conditions(
  paths: Record<string, [fc.Arbitrary<unknown>, boolean]>,
  depth: number,
  elemMatch: boolean,
): fc.Arbitrary<Record<string, unknown>> {
  const tests = fc
    .subarray(Object.keys(paths), { maxLength: 2 })
    .chain((names) => fc.tuple(...names.map((name) => fieldTest(paths[name]!).map((test) => [name, test] as const))));
  const members = elemMatch
    ? fc.option(conditions(MEMBER_PATHS, 0, false), { nil: undefined, freq: 3 })
    : fc.constant(undefined);
  const nested =
    depth > 0
      ? fc.option(
          fc.tuple(
            fc.constantFrom('$and', '$or', '$nor'),
            fc.array(conditions(paths, depth - 1, elemMatch), { minLength: 1, maxLength: 2 }),
          ),
          { nil: undefined, freq: 3 },
        )
      : fc.constant(undefined);
  return fc.tuple(tests, members, nested).map(([pairs, match, logic]) => ({
    ...Object.fromEntries(pairs),
    ...(match && { 'project.members': { $elemMatch: match } }),
    ...(logic && { [logic[0]]: logic[1] }),
  }));
}

/** A rule on tasks; inverted one time in three, or as often as not with `manyRefusals`. */
function rule(manyRefusals = false): fc.Arbitrary<RoleRule> {
  return fc
    .record({
      action: weighted<string | string[]>(
        [5, fc.constant('read')],
        [1, fc.constant('update')],
        [1, fc.constant('manage')],
      ),
      subject: weighted<string>([8, fc.constant('Task')], [1, fc.constant('all')]),
      inverted: weighted([manyRefusals ? 1 : 2, fc.constant(false)], [1, fc.constant(true)]),
      conditions: weighted<Record<string, unknown> | undefined>(
        [1, fc.constant(undefined)],
        [manyRefusals ? 30 : 8, conditions(TASK_PATHS, 1, true)],
      ),
    })
    .map(
      ({ inverted, conditions, ...rest }) =>
        ({ ...rest, ...(inverted && { inverted }), ...(conditions && { conditions }) }) as RoleRule,
    );
}

const graph: fc.Arbitrary<Graph> = fc
  .array(
    fc.record({
      archived: orNull(fc.boolean()),
      score: orNull(fc.integer({ min: -2, max: 2 })),
      members: fc.array(
        fc.record({
          user_id: orNull(fc.integer({ min: 1, max: 3 })),
          role: orNull(fc.constantFrom(...ROLES_OF_MEMBERS)),
        }),
        { maxLength: 3 },
      ),
    }),
    { maxLength: 3 },
  )
  .chain((projects) =>
    fc.record({
      projects: fc.constant(projects.map((project, index) => ({ id: index + 1, ...project }))),
      tasks: fc
        .array(
          fc.record({
            done: orNull(fc.boolean()),
            project: orNull(fc.integer({ min: 1, max: Math.max(projects.length, 1) })),
          }),
          { maxLength: 8 },
        )
        .map((tasks) =>
          tasks.map((task, index) => ({
            id: index + 1,
            ...task,
            project: task.project !== null && task.project <= projects.length ? task.project : null,
          })),
        ),
    }),
  );

/**
 * Roles (each may include those before it), a principal holding some of them, an action, and a
 * graph. `manyRefusals`: roles of up to 10 rules, half of them inverted (many through `$elemMatch`
 * and to-many paths), nearly all conditional.
 */
export function relationCase({ manyRefusals = false } = {}): fc.Arbitrary<RelationCase> {
  const rules = fc.array(rule(manyRefusals), { minLength: manyRefusals ? 5 : 1, maxLength: manyRefusals ? 10 : 3 });
  const roles = fc.tuple(
    ...ROLE_NAMES.map((name, index) =>
      fc.record({ name: fc.constant(name), rules, includes: fc.subarray(ROLE_NAMES.slice(0, index)) }),
    ),
  );
  const user = fc.record({
    id: fc.integer({ min: 1, max: 3 }),
    email: fc.constant('ada@example.com'),
    is_admin: fc.constant(false),
    roles: fc.subarray([...ROLE_NAMES], { minLength: 1 }),
  });
  return fc.record({ roles, user, action: weighted([4, fc.constant('read')], [1, fc.constant('update')]), graph });
}

/** The ids of the tasks `filter` selects, sorted (on a fork of its own: no identity map between queries). */
export async function tasksWhere(orm: MikroORM, filter: unknown): Promise<number[]> {
  const found = await orm.em.fork().find(Task, filter as FilterQuery<Task>);
  return found.map((task) => task.id).sort((a, b) => a - b);
}

/** The ids of the tasks the ability allows `action` on, each loaded with its project and members, sorted. */
export async function tasksAllowed(
  orm: MikroORM,
  ability: MongoAbility,
  action: string,
  also: (task: Task) => boolean = () => false,
): Promise<number[]> {
  const found = await orm.em.fork().find(Task, {}, { populate: ['project.members'] });
  return found
    .filter((task) => also(task) || ability.can(action, subject('Task', task)))
    .map((task) => task.id)
    .sort((a, b) => a - b);
}
