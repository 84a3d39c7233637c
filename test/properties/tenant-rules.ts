/**
 * The tenant property's generator and tables. Three organizations; a `Doc` table of rows that
 * belong to one of them or to none (`org_id` NULL), and an `Organization` table; random global
 * roles and organization roles of CASL rules (conditions that name `org_id` and `id` themselves,
 * other organizations' ids, `${org.id}`, `${org.slug}` and `${user.id}`, `$and`/`$or`/`$nor`/`$not`,
 * inverted rules, `manage all`, rules for several subject types); and a user with some global
 * roles who is a member of one organization with some of its roles. A case is plain data, so
 * that a counterexample fast-check prints can be pasted into a regression case.
 */
import { defineEntity, MikroORM, type FilterQuery, type InferEntity } from '@mikro-orm/core';
import { PostgreSqlDriver } from '@mikro-orm/postgresql';
import fc from 'fast-check';
import type { RoleRule } from '../../src/authorization/role-rules.js';
import { createSchema, sqliteDefaults } from '../helpers/orm.js';

const p = defineEntity.properties;

export const Doc = defineEntity({
  name: 'Doc',
  tableName: 'tenant_docs',
  properties: {
    id: p.integer().primary().autoincrement(false),
    org_id: p.integer().nullable(),
    team: p.string().nullable(),
    score: p.integer().nullable(),
    ownerId: p.integer().nullable(),
  },
});
export type Doc = InferEntity<typeof Doc>;

/**
 * The subject type `Organization`, as an application's own table of them might be: with the
 * columns the rules name, so that any generated rule can be asked of it, and `org_id` always NULL
 * (an organization belongs to none).
 */
export const Org = defineEntity({
  name: 'Organization',
  tableName: 'tenant_orgs',
  properties: {
    id: p.integer().primary().autoincrement(false),
    slug: p.string(),
    org_id: p.integer().nullable(),
    team: p.string().nullable(),
    score: p.integer().nullable(),
    ownerId: p.integer().nullable(),
  },
});

export const ORGS = [
  { id: 1, slug: 'acme', org_id: null, team: 'acme', score: 0, ownerId: 1 },
  { id: 2, slug: 'globex', org_id: null, team: 'red', score: 2, ownerId: 2 },
  { id: 3, slug: 'initech', org_id: null, team: null, score: null, ownerId: null },
] as const;

export interface DocRow {
  id: number;
  org_id: number | null;
  team: string | null;
  score: number | null;
  ownerId: number | null;
}

export interface Role {
  name: string;
  rules: RoleRule[];
  includes: string[];
}

export interface TenantCase {
  globalRoles: Role[];
  orgRoles: Role[];
  user: { id: number; email: string; is_admin: boolean; roles: string[] };
  /** The organization the question is asked in (1 to 3), and the roles the membership holds there. */
  org: number;
  membership: string[];
  action: string;
  docs: DocRow[];
}

export const GLOBAL_ROLE_NAMES = ['staff', 'auditor'] as const;
export const ORG_ROLE_NAMES = ['viewer', 'member', 'owner'] as const;

const weighted = <T>(...choices: [number, fc.Arbitrary<T>][]) =>
  fc.oneof(...choices.map(([weight, arbitrary]) => ({ weight, arbitrary })));
const orNull = <T>(arbitrary: fc.Arbitrary<T>) => fc.option(arbitrary, { nil: null, freq: 5 });

const TEAMS = ['acme', 'globex', 'red'];
type Field = 'org_id' | 'id' | 'team' | 'score' | 'ownerId';
const orgId = fc.integer({ min: 1, max: 3 });
const VALUES = (org: boolean): Record<Field, fc.Arbitrary<unknown>> => ({
  org_id: org ? weighted<unknown>([3, orgId], [1, fc.constant('${org.id}')]) : orgId,
  id: fc.integer({ min: 1, max: 4 }),
  team: org
    ? weighted<unknown>([3, fc.constantFrom(...TEAMS)], [1, fc.constant('${org.slug}')])
    : fc.constantFrom(...TEAMS),
  score: fc.integer({ min: -2, max: 2 }),
  ownerId: weighted<unknown>([2, fc.integer({ min: 1, max: 3 })], [1, fc.constant('${user.id}')]),
});

function fieldTest(field: Field, org: boolean): fc.Arbitrary<unknown> {
  const value = orNull(VALUES(org)[field]);
  const entries: fc.Arbitrary<Record<string, unknown>>[] = [
    fc.tuple(fc.constantFrom('$eq', '$ne'), value).map(([op, v]) => ({ [op]: v })),
    fc.tuple(fc.constantFrom('$in', '$nin'), fc.array(value, { maxLength: 3 })).map(([op, v]) => ({ [op]: v })),
  ];
  if (field === 'score' || field === 'id')
    entries.push(fc.tuple(fc.constantFrom('$lt', '$gte'), VALUES(org)[field]).map(([op, v]) => ({ [op]: v })));
  return weighted<unknown>(
    [2, value],
    [3, fc.oneof(...entries)],
    [1, fc.oneof(...entries).map((test) => ({ $not: test }))],
  );
}

/** Tests of some fields, and at times `$and`, `$or` or `$nor` of nested ones. */
function condition(org: boolean, depth = 1): fc.Arbitrary<Record<string, unknown>> {
  const maybe = (field: Field) =>
    weighted([3, fc.constant(undefined)], [field === 'org_id' ? 3 : 2, fieldTest(field, org)]);
  const fields = fc
    .record({
      org_id: maybe('org_id'),
      id: maybe('id'),
      team: maybe('team'),
      score: maybe('score'),
      ownerId: maybe('ownerId'),
    })
    .map((tests) => Object.fromEntries(Object.entries(tests).filter(([, test]) => test !== undefined)));
  if (depth === 0) return fields;
  const nested = fc.tuple(
    fc.constantFrom('$and', '$or', '$nor'),
    fc.array(condition(org, depth - 1), { minLength: 1, maxLength: 2 }),
  );
  return fc
    .tuple(fields, fc.option(nested, { nil: undefined, freq: 3 }))
    .map(([tests, logic]) => (logic ? { ...tests, [logic[0]]: logic[1] } : tests));
}

function rule(org: boolean): fc.Arbitrary<RoleRule> {
  return fc
    .record({
      action: weighted<string | string[]>(
        [4, fc.constant('read')],
        [2, fc.constant('update')],
        [2, fc.constant('manage')],
      ),
      subject: weighted<string | string[]>(
        [5, fc.constant('Doc')],
        [2, fc.constant('all')],
        [2, fc.constant('Organization')],
        [1, fc.constant(['Doc', 'Organization'])],
      ),
      inverted: weighted([3, fc.constant(false)], [1, fc.constant(true)]),
      conditions: weighted<Record<string, unknown> | undefined>([2, fc.constant(undefined)], [5, condition(org)]),
    })
    .map(
      ({ inverted, conditions, ...rest }) =>
        ({ ...rest, ...(inverted && { inverted }), ...(conditions && { conditions }) }) as RoleRule,
    );
}

function roles(names: readonly string[], org: boolean): fc.Arbitrary<Role[]> {
  return fc.tuple(
    ...names.map((name, index) =>
      fc.record({
        name: fc.constant(name),
        rules: fc.array(rule(org), { minLength: 1, maxLength: 4 }),
        includes: fc.subarray(names.slice(0, index)),
      }),
    ),
  );
}

const doc: fc.Arbitrary<Omit<DocRow, 'id'>> = fc.record({
  org_id: weighted<number | null>([6, orgId], [1, fc.constant(null)]),
  team: orNull(fc.constantFrom(...TEAMS)),
  score: orNull(fc.integer({ min: -2, max: 2 })),
  ownerId: orNull(fc.integer({ min: 1, max: 3 })),
});

export function tenantCase(): fc.Arbitrary<TenantCase> {
  return fc.record({
    globalRoles: roles(GLOBAL_ROLE_NAMES, false),
    orgRoles: roles(ORG_ROLE_NAMES, true),
    user: fc.record({
      id: fc.integer({ min: 1, max: 3 }),
      email: fc.constant('ada@example.com'),
      is_admin: fc.boolean(),
      roles: fc.subarray([...GLOBAL_ROLE_NAMES]),
    }),
    org: orgId,
    membership: fc.subarray([...ORG_ROLE_NAMES, 'ghost'], { minLength: 1 }),
    action: weighted([4, fc.constant('read')], [2, fc.constant('update')], [1, fc.constant('delete')]),
    docs: fc
      .array(doc, { minLength: 1, maxLength: 10 })
      .map((rows) => rows.map((values, index) => ({ id: index + 1, ...values }))),
  });
}

/** The two tables on SQLite in memory, or on the PostgreSQL database at `url`, with the organizations stored. */
export async function openTenantTables(url?: string): Promise<MikroORM> {
  const options = { entities: [Doc, Org], debug: false };
  const orm = url
    ? await MikroORM.init({ ...options, driver: PostgreSqlDriver, clientUrl: url })
    : await MikroORM.init({ ...options, ...sqliteDefaults(':memory:') });
  await createSchema(orm);
  await orm.em.fork().insertMany(
    Org,
    ORGS.map((org) => ({ ...org })),
  );
  return orm;
}

export async function storeDocs(orm: MikroORM, rows: readonly DocRow[]): Promise<void> {
  const em = orm.em.fork();
  await em.nativeDelete(Doc, {});
  await em.insertMany(
    Doc,
    rows.map((row) => ({ ...row })),
  );
}

/** The ids of the rows of `entity` that `filter` selects, sorted. */
export async function idsWhere(orm: MikroORM, entity: typeof Doc | typeof Org, filter: unknown): Promise<number[]> {
  const found = await orm.em.fork().find(entity as typeof Doc, filter as FilterQuery<Doc>);
  return found.map((row) => row.id).sort((a, b) => a - b);
}
