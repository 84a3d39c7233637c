/**
 * The generator of the `req.em` property (CONTRACT-4 §29): two tenant entities of the tests' own
 * (`EDoc`, in a nullable `EFolder`), random global and organization roles over them (conditions on
 * columns and through `folder`, `${user.id}`, inverted rules, fields, `manage`), a place (no
 * organization, the user's, another) and sometimes a token's scopes, and a sequence of careless
 * operations: `findOne` by any id, lists with `populate`, a body assigned wholesale to a row found
 * or to a mere reference (a reference set from the body included), a create, a delete, folders
 * found by `$some`, `$none` or `$every` of their docs.
 * A case is plain data, so that a counterexample can be pasted into a fixed case.
 */
import { defineEntity, MikroORM, type InferEntity } from '@mikro-orm/core';
import { PostgreSqlDriver } from '@mikro-orm/postgresql';
import fc from 'fast-check';
import type { RoleRule } from '../../src/authorization/role-rules.js';
import { createSchema, sqliteDefaults } from '../helpers/orm.js';

const p = defineEntity.properties;

export const EFolder = defineEntity({
  name: 'EFolder',
  tableName: 'enforced_folders',
  properties: {
    id: p.integer().primary().autoincrement(false),
    org_id: p.integer(),
    archived: p.boolean().nullable(),
    docs: () => p.oneToMany(EDoc).mappedBy('folder'),
  },
});
export const EDoc = defineEntity({
  name: 'EDoc',
  tableName: 'enforced_docs',
  properties: {
    id: p.integer().primary(),
    org_id: p.integer(),
    owner_id: p.integer().nullable(),
    status: p.string().nullable(),
    level: p.integer().nullable(),
    folder: () => p.manyToOne(EFolder).nullable(),
  },
});
export type EDoc = InferEntity<typeof EDoc>;

/** Organizations 1 and 2 stand for the two made in the test (`ORG_A`, `ORG_B` are their indexes). */
export type Place = 'none' | 'own' | 'other';
export interface Body {
  status?: string | null;
  level?: number | null;
  owner_id?: number | null;
  /** A folder's id (1-3) or null. */
  folder?: number | null;
  /** 0 or 1: the first or the second organization. */
  org?: 0 | 1;
  /** An update's new primary key (7-9: no doc's), which req.em never writes. */
  id?: number;
}
export type Operation =
  | { kind: 'findOne'; id: number }
  | { kind: 'list'; entity: 'EDoc' | 'EFolder' }
  /** `meanwhile`: what another writer changes in the row between req.em's read and its flush. */
  | { kind: 'update'; id: number; body: Body; reference: boolean; meanwhile?: Body }
  | { kind: 'create'; body: Body }
  | { kind: 'delete'; id: number }
  /** Folders by their docs: `find(EFolder, { docs: { [operator]: test } })`. */
  | { kind: 'folders'; operator: '$some' | '$none' | '$every'; test: DocTest };

/** A test on a doc inside a collection operator: on columns that are never NULL (SQL's NOT of NULL is no answer). */
export type DocTest = { id: { $gt: number } } | { id: { $in: number[] } } | { org_id: { $ne: null } };
const DOC_TESTS: DocTest[] = [{ id: { $gt: 2 } }, { id: { $in: [1, 4] } }, { org_id: { $ne: null } }];

export interface EnforcedCase {
  global: RoleRule[];
  org: RoleRule[];
  place: Place;
  scopes: string[] | undefined;
  folders: { id: number; org: 0 | 1; archived: boolean | null }[];
  docs: {
    id: number;
    org: 0 | 1;
    owner: 'me' | 'other' | null;
    status: string | null;
    level: number | null;
    folder: number | null;
  }[];
  operations: Operation[];
}

const STATUSES = ['draft', 'final'] as const;
const orNull = <T>(arbitrary: fc.Arbitrary<T>) => fc.option(arbitrary, { nil: null, freq: 4 });

function docConditions(): fc.Arbitrary<Record<string, unknown>> {
  const tests: fc.Arbitrary<[string, unknown]>[] = [
    fc.tuple(fc.constant('owner_id'), fc.constantFrom<unknown>('${user.id}', { $ne: '${user.id}' }, null)),
    fc.tuple(
      fc.constant('status'),
      fc.constantFrom<unknown>('draft', { $in: ['final'] }, { $ne: 'final' }, { $nin: [null, 'draft'] }),
    ),
    fc.tuple(fc.constant('level'), fc.constantFrom<unknown>({ $gt: 0 }, { $lte: 1 }, 2, null)),
    fc.tuple(fc.constant('folder.archived'), fc.constantFrom<unknown>(false, { $ne: true }, null)),
  ];
  const pairs = fc.uniqueArray(fc.oneof(...tests), { minLength: 1, maxLength: 2, selector: ([name]) => name });
  return pairs.map((chosen) => Object.fromEntries(chosen));
}

function rule(): fc.Arbitrary<RoleRule> {
  const doc = fc.record({
    action: fc.constantFrom('read', 'create', 'update', 'delete', 'manage'),
    subject: fc.constant('EDoc'),
    conditions: fc.option(docConditions(), { nil: undefined, freq: 3 }),
    fields: fc.option(fc.subarray(['status', 'level', 'owner_id', 'folder', 'org_id'], { minLength: 1 }), {
      nil: undefined,
      freq: 4,
    }),
    inverted: fc.option(fc.constant(true), { nil: undefined, freq: 4 }),
  });
  const folder = fc.record({
    action: fc.constantFrom('read', 'manage'),
    subject: fc.constant('EFolder'),
    conditions: fc.option(fc.record({ archived: fc.constantFrom<unknown>(false, { $ne: true }) }), {
      nil: undefined,
      freq: 2,
    }),
    inverted: fc.option(fc.constant(true), { nil: undefined, freq: 5 }),
  });
  const defined = (r: object) => Object.fromEntries(Object.entries(r).filter(([, v]) => v !== undefined)) as RoleRule;
  return fc.oneof({ weight: 3, arbitrary: doc }, { weight: 1, arbitrary: folder }).map(defined);
}

function body(): fc.Arbitrary<Body> {
  return fc
    .record(
      {
        status: orNull(fc.constantFrom(...STATUSES)),
        level: orNull(fc.integer({ min: -1, max: 2 })),
        owner_id: orNull(fc.constantFrom(0, 1)),
        folder: orNull(fc.integer({ min: 1, max: 3 })),
        org: fc.constantFrom<0 | 1>(0, 1),
      },
      { requiredKeys: [] },
    )
    .filter((b) => Object.keys(b).length > 0);
}

/** A body for an update: now and then, one that sets the primary key too. */
function updateBody(): fc.Arbitrary<Body> {
  const newId = fc.option(fc.integer({ min: 7, max: 9 }), { nil: undefined, freq: 6 });
  return fc.tuple(body(), newId).map(([b, key]) => (key === undefined ? b : { ...b, id: key }));
}

const id = fc.integer({ min: 1, max: 6 });
const operation: fc.Arbitrary<Operation> = fc.oneof(
  fc.record({ kind: fc.constant('findOne' as const), id }),
  fc.record({ kind: fc.constant('list' as const), entity: fc.constantFrom('EDoc' as const, 'EFolder' as const) }),
  fc
    .record({
      kind: fc.constant('update' as const),
      id,
      body: updateBody(),
      reference: fc.boolean(),
      meanwhile: fc.option(body(), { nil: undefined, freq: 2 }),
    })
    .map(({ meanwhile, ...update }) => (meanwhile === undefined ? update : { ...update, meanwhile })),
  fc.record({ kind: fc.constant('create' as const), body: body() }),
  fc.record({ kind: fc.constant('delete' as const), id }),
  fc.record({
    kind: fc.constant('folders' as const),
    operator: fc.constantFrom('$some' as const, '$none' as const, '$every' as const),
    test: fc.constantFrom(...DOC_TESTS),
  }),
);

export function enforcedCase(): fc.Arbitrary<EnforcedCase> {
  return fc.record({
    global: fc.array(rule(), { maxLength: 3 }),
    org: fc.array(rule(), { maxLength: 3 }),
    place: fc.constantFrom<Place>('none', 'own', 'own', 'other'),
    scopes: fc.constantFrom<string[] | undefined>(undefined, undefined, ['docs:read'], ['docs:write']),
    folders: fc.tuple(
      ...[1, 2, 3].map((folderId) =>
        fc.record({ id: fc.constant(folderId), org: fc.constantFrom<0 | 1>(0, 1), archived: orNull(fc.boolean()) }),
      ),
    ),
    docs: fc.tuple(
      ...[1, 2, 3, 4].map((docId) =>
        fc.record({
          id: fc.constant(docId),
          org: fc.constantFrom<0 | 1>(0, 1),
          owner: fc.constantFrom<'me' | 'other' | null>('me', 'other', null),
          status: orNull(fc.constantFrom(...STATUSES)),
          level: orNull(fc.integer({ min: -1, max: 2 })),
          folder: orNull(fc.integer({ min: 1, max: 3 })),
        }),
      ),
    ),
    operations: fc.array(operation, { minLength: 1, maxLength: 6 }),
  });
}

/** The two tables on SQLite in memory, or on the PostgreSQL database at `url`. */
export async function openEnforcedTables(url?: string): Promise<MikroORM> {
  const entities = [EDoc, EFolder];
  const orm = url
    ? await MikroORM.init({ driver: PostgreSqlDriver, clientUrl: url, entities, debug: false })
    : await MikroORM.init({ ...sqliteDefaults(':memory:'), entities, debug: false });
  await createSchema(orm);
  return orm;
}
