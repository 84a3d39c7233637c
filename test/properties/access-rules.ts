/**
 * The accessibleBy property's generator and harness. A `Thing` table of the test's own (SQLite in
 * memory, or a fresh PostgreSQL database), random roles of CASL rules over its columns, a random
 * principal and random rows, and the check: the rows `em.find` returns with the filter against
 * those `ability.can` allows, one by one. A case is plain data (what fast-check prints when it
 * shrinks a failure), so a counterexample can be pasted into a regression case as printed.
 *
 * The domains are small, so that conditions match some rows and miss others: five teams (one a
 * principal's email, one differing from another only in case), scores and owners around zero, and
 * NULL in every column. Rules use each operator CASL's conditions know and the filter translates
 * (`$eq` also as a bare value, `$ne`, `$in`, `$nin`, and `$lt`, `$lte`, `$gt`, `$gte` on the
 * number columns), with `${user.*}` placeholders where the column's type fits.
 *
 * `$and`, `$or`, `$nor` and `$not` nest conditions to a depth of two.
 */
import { subject, type MongoAbility } from '@casl/ability';
import { defineEntity, MikroORM, type FilterQuery, type InferEntity } from '@mikro-orm/core';
import { PostgreSqlDriver } from '@mikro-orm/postgresql';
import fc from 'fast-check';
import type { RoleRule } from '../../src/authorization/role-rules.js';
import { createSchema, sqliteDefaults } from '../helpers/orm.js';

const p = defineEntity.properties;

export const Thing = defineEntity({
  name: 'Thing',
  tableName: 'access_things',
  properties: {
    id: p.integer().primary().autoincrement(false),
    team: p.string().nullable(),
    score: p.integer().nullable(),
    flag: p.boolean().nullable(),
    ownerId: p.integer().nullable(),
    /** Never named by the rules: what service code narrows the filter by (spread into it, say). */
    archived: p.boolean().nullable(),
  },
});
export type Thing = InferEntity<typeof Thing>;

export interface Row {
  id: number;
  team: string | null;
  score: number | null;
  flag: boolean | null;
  ownerId: number | null;
  archived?: boolean | null;
}

export interface Role {
  name: string;
  rules: RoleRule[];
  includes: string[];
}

export interface User {
  id: number;
  email: string;
  is_admin: boolean;
  roles: string[];
}

/** Everything one run is made of. */
export interface AccessCase {
  roles: Role[];
  user: User;
  action: string;
  rows: Row[];
}

export const TEAMS = ['north', 'south', 'east', 'North', 'ada@example.com'] as const;
const EMAILS = ['ada@example.com', 'bob@example.com'];
/** Redefined by every run, all of them, so that no role of an earlier run is left to be included. */
export const ROLE_NAMES = ['base', 'staff', 'lead', 'owner'] as const;

const weighted = <T>(...choices: [number, fc.Arbitrary<T>][]) =>
  fc.oneof(...choices.map(([weight, arbitrary]) => ({ weight, arbitrary })));
const orNull = <T>(arbitrary: fc.Arbitrary<T>) => fc.option(arbitrary, { nil: null, freq: 4 });

type Field = 'team' | 'score' | 'flag' | 'ownerId';
/** A value a condition compares a column with: of the column's type, or a placeholder that becomes one. */
const VALUES: Record<Field, fc.Arbitrary<unknown>> = {
  team: weighted([4, fc.constantFrom(...TEAMS)], [1, fc.constant('${user.email}')]),
  score: fc.integer({ min: -4, max: 4 }),
  flag: weighted<unknown>([4, fc.boolean()], [1, fc.constant('${user.is_admin}')]),
  ownerId: weighted<unknown>([3, fc.integer({ min: -1, max: 4 })], [2, fc.constant('${user.id}')]),
};
/** Order operators compare numbers only: the filter refuses strings (a collation orders them otherwise). */
const ORDERED: Field[] = ['score', 'ownerId'];

/** The operators of one field, e.g. `{ $gte: -1, $nin: [2, null] }`, sometimes under `$not`. */
function operators(field: Field, compound: boolean): fc.Arbitrary<Record<string, unknown>> {
  const value = orNull(VALUES[field]);
  const list = fc.array(value, { maxLength: 3 });
  const entries: fc.Arbitrary<[string, unknown]>[] = [
    fc.tuple(fc.constantFrom('$eq', '$ne'), value),
    fc.tuple(fc.constantFrom('$in', '$nin'), list),
  ];
  if (ORDERED.includes(field)) entries.push(fc.tuple(fc.constantFrom('$lt', '$lte', '$gt', '$gte'), VALUES[field]));
  const pairs = (maxLength: number) =>
    fc.uniqueArray(fc.oneof(...entries), { minLength: 1, maxLength, selector: ([name]) => name });
  const plain = weighted([3, pairs(1)], [1, pairs(2)]).map((chosen) => Object.fromEntries(chosen));
  if (!compound) return plain;
  return weighted(
    [4, plain],
    [1, fc.tuple(plain, fc.option(plain, { nil: undefined })).map(([negated, more]) => ({ ...more, $not: negated }))],
  );
}

/** A field's test: a bare value (`$eq`) or operators. */
const fieldTest = (field: Field, compound: boolean) =>
  weighted<unknown>([1, orNull(VALUES[field])], [3, operators(field, compound)]);

/**
 * Tests of some fields (all must hold: one or two mostly, so that rows pass), none at times (which
 * matches every row), and `$and`, `$or` or `$nor` of nested conditions.
 */
function condition(compound: boolean, depth = 2): fc.Arbitrary<Record<string, unknown>> {
  const maybe = (field: Field) => weighted([3, fc.constant(undefined)], [2, fieldTest(field, compound)]);
  const fields = fc
    .record({ team: maybe('team'), score: maybe('score'), flag: maybe('flag'), ownerId: maybe('ownerId') })
    .map((tests) => Object.fromEntries(Object.entries(tests).filter(([, test]) => test !== undefined)));
  if (!compound || depth === 0) return fields;
  const nested = fc.tuple(
    fc.constantFrom('$and', '$or', '$nor'),
    fc.array(condition(compound, depth - 1), { minLength: 1, maxLength: 3 }),
  );
  return fc
    .tuple(fields, fc.option(nested, { nil: undefined, freq: 2 }))
    .map(([tests, logic]) => (logic ? { ...tests, [logic[0]]: logic[1] } : tests));
}

/**
 * A CASL raw rule: the property's actions on `Thing` mostly, sometimes `manage`, `all` or another
 * subject; inverted one time in three, or as often as not with `manyRefusals`.
 */
function rule(compound: boolean, manyRefusals = false): fc.Arbitrary<RoleRule> {
  return fc
    .record({
      action: weighted<string | string[]>(
        [5, fc.constant('read')],
        [2, fc.constant('update')],
        [2, fc.constantFrom('manage', ['read', 'update'])],
      ),
      subject: weighted<string | string[]>(
        [6, fc.constant('Thing')],
        [1, fc.constantFrom('all', 'Other', ['Thing', 'Other'])],
      ),
      inverted: weighted([manyRefusals ? 1 : 2, fc.constant(false)], [1, fc.constant(true)]),
      conditions: weighted<Record<string, unknown> | undefined>(
        [1, fc.constant(undefined)],
        [manyRefusals ? 30 : 8, condition(compound)],
      ),
      // A per-field rule: `can(action, row)` asks about no field, so an inverted one is not applied.
      fields: weighted<string[] | undefined>([8, fc.constant(undefined)], [1, fc.constant(['team'])]),
    })
    .map(
      ({ inverted, conditions, fields, ...rest }) =>
        ({
          ...rest,
          ...(inverted && { inverted }),
          ...(conditions && { conditions }),
          ...(fields && { fields }),
        }) as RoleRule,
    );
}

/** A scope's rule: one of `rule`'s, granting only (scopes do not take away). */
export function grantRule(compound = true): fc.Arbitrary<RoleRule> {
  return rule(compound).map(({ inverted: _inverted, ...granting }) => granting as RoleRule);
}

const row: fc.Arbitrary<Omit<Row, 'id'>> = fc.record({
  team: orNull(fc.constantFrom(...TEAMS)),
  score: orNull(fc.integer({ min: -3, max: 3 })),
  flag: orNull(fc.boolean()),
  ownerId: orNull(fc.integer({ min: -1, max: 3 })),
  archived: orNull(fc.boolean()),
});

/**
 * Roles (each may include those before it), a principal holding some of them, an action and rows.
 * `manyRefusals`: roles of up to 12 rules, half of them inverted and nearly all conditional, so
 * that grants and refusals interleave for many levels (the filter nests by priority: filters.ts).
 */
export function accessCase({ compound = true, manyRefusals = false } = {}): fc.Arbitrary<AccessCase> {
  const rules = fc.array(rule(compound, manyRefusals), {
    minLength: manyRefusals ? 6 : 1,
    maxLength: manyRefusals ? 12 : 4,
  });
  const roles = fc.tuple(
    ...ROLE_NAMES.map((name, index) =>
      fc.record({ name: fc.constant(name), rules, includes: fc.subarray(ROLE_NAMES.slice(0, index)) }),
    ),
  );
  const user = fc.record({
    id: fc.integer({ min: 1, max: 3 }),
    email: fc.constantFrom(...EMAILS),
    is_admin: fc.boolean(),
    // 'ghost' is never defined: it grants nothing.
    roles: fc.subarray([...ROLE_NAMES, 'ghost'], { minLength: 1 }),
  });
  return fc.record({
    roles,
    user,
    action: weighted([6, fc.constant('read')], [2, fc.constant('update')], [1, fc.constant('delete')]),
    rows: fc.array(row, { maxLength: 10 }).map((rows) => rows.map((values, index) => ({ id: index + 1, ...values }))),
  });
}

/** The Thing table on SQLite in memory, or on the PostgreSQL database at `url`, created empty. */
export async function openThings(url?: string): Promise<MikroORM> {
  const orm = url
    ? await MikroORM.init({ driver: PostgreSqlDriver, clientUrl: url, entities: [Thing], debug: false })
    : await MikroORM.init({ ...sqliteDefaults(':memory:'), entities: [Thing], debug: false });
  await createSchema(orm);
  return orm;
}

/** Replaces the table's rows. */
export async function store(orm: MikroORM, rows: readonly Row[]): Promise<void> {
  const em = orm.em.fork();
  await em.nativeDelete(Thing, {});
  if (rows.length)
    await em.insertMany(
      Thing,
      rows.map((values) => ({ ...values })),
    );
}

/** The ids of the rows `filter` selects, sorted (each query on a fork of its own: no identity map between them). */
export async function idsWhere(orm: MikroORM, filter: unknown): Promise<number[]> {
  const found = await orm.em.fork().find(Thing, filter as FilterQuery<Thing>);
  return found.map((thing) => thing.id).sort((a, b) => a - b);
}

/** The ids of the stored rows `allowed` holds for, as `em.find` reads them back, sorted. */
export async function idsAllowed(orm: MikroORM, allowed: (row: Row) => boolean): Promise<number[]> {
  const found = await orm.em.fork().find(Thing, {});
  return found
    .filter((thing) => allowed({ ...thing } as Row))
    .map((thing) => thing.id)
    .sort((a, b) => a - b);
}

/** Whether the ability allows `action` on the row: on a plain copy, since `subject()` tags the object. */
export const allows = (ability: MongoAbility, action: string, row: Row) =>
  ability.can(action, subject('Thing', { ...row }));
