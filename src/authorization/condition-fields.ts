/**
 * The field a leaf of a rule's condition tests, as a filter reaches it: its name checked (no `$`,
 * no empty segment, no dotted path without the entity's metadata), its path followed through the
 * entity's relations (within MAX_RELATIONS, ending where it must), and its column's type and
 * nullability read from the metadata, so that each test can say whether NULL matches.
 */
import type { EntityMetadata, EntityProperty } from '@mikro-orm/core';
import { ITSELF, type FieldCondition } from '@ucast/mongo2js';
import { columnType, type ColumnType } from './column-types.js';
import { throughRelations, type Query } from './relation-filters.js';
import { isScalar, MAX_RELATIONS, walkPath, type Relation } from './relation-walks.js';
import { UnsupportedCondition } from './unsupported-condition.js';

/** What a condition is read on: the entity's metadata, if known, and how many relations led there. */
export interface Scope {
  meta: EntityMetadata | undefined;
  depth: number;
}

/** What the metadata says of a column: its type (undefined: not checked), and whether it may hold NULL. */
export interface Column {
  type: ColumnType | undefined;
  nullable: boolean;
}
const UNKNOWN: Column = { type: undefined, nullable: true };

/** A field's test, by its column's name (and type, when the metadata says it), negated or not. */
export type FieldTest = (name: string, negate: boolean, column: Column) => Query;

/**
 * A column's type and nullability. A relation's target is guarded (relation-filters.ts: its primary
 * key is not NULL), so a column NOT NULL in the schema holds a value wherever a test reads it.
 */
export const columnOf = (property: EntityProperty): Column => ({
  type: columnType(property),
  nullable: property.nullable === true,
});

/** `{ name: null }`, where the column may hold NULL; else false (the test needs no NULL branch). */
export const isNull = (name: string, column: Column): Query => column.nullable && { [name]: null };

/** A leaf's test on its field, through the relations its path follows (CASL's meaning, see relation-filters.ts). */
export function onField(
  node: FieldCondition,
  negate: boolean,
  scope: Scope,
  brokenHolds: boolean,
  test: FieldTest,
): Query {
  // The name first: `{ $or: [...] }` is refused for its name, not for the list it compares with.
  if (!scope.meta) return test(field(node), negate, UNKNOWN);
  const relations = follow(node, scope, 'field');
  const name = (node.field as string).split('.').at(-1)!;
  const column = columnOf((relations.at(-1)?.target ?? scope.meta).properties[name]!);
  return throughRelations(relations, negate, brokenHolds, (negate) => test(name, negate, column));
}

/**
 * The relations a leaf's path follows on the scope's entity, checked: a field path must end at a
 * column, an `$elemMatch` path at a collection, within MAX_RELATIONS relations in all.
 */
export function follow(node: FieldCondition, scope: Scope, end: 'field' | 'collection'): Relation[] {
  const path = field(node, scope.meta !== undefined);
  if (!scope.meta) throw new UnsupportedCondition(`$elemMatch on "${path}" needs the entity's metadata: pass { em }`);
  const { relations, meta, rest } = walkPath(scope.meta, path);
  const named = `"${path}" (on ${scope.meta.className})`;
  if (end === 'collection') {
    if (rest.length > 0 || !relations.at(-1)?.many)
      throw new UnsupportedCondition(
        `$elemMatch takes a path to a to-many relation (a collection), and ${named} is none`,
      );
  } else if (rest.length !== 1) {
    throw new UnsupportedCondition(
      rest.length === 0
        ? `${named} names a relation, not a column: compare a property through it, such as "${path}.${meta.primaryKeys[0]}"`
        : `${named}: "${rest[0]}" is no relation of ${meta.className}`,
    );
  } else if (!isScalar(meta, rest[0]!)) {
    throw new UnsupportedCondition(`${named}: ${meta.className} has no column "${rest[0]}"`);
  }
  if (scope.depth + relations.length > MAX_RELATIONS)
    throw new UnsupportedCondition(`${named} follows more than ${MAX_RELATIONS} relations`);
  return relations;
}

function field(node: FieldCondition, dotted = false): string {
  if (typeof node.field !== 'string' || node.field === ITSELF) {
    throw new UnsupportedCondition(`"${String(node.field)}" is not a property name`);
  }
  if (node.field.includes('.') && !dotted) {
    throw new UnsupportedCondition(
      `"${node.field}" is a dotted path: dotted paths through relations need the entity's metadata (pass { em })`,
    );
  }
  // Rule checks refuse unknown operators when a role is defined; this is the last line: a filter
  // cannot name a property beginning with `$`, which MikroORM would read as its own operator.
  if (node.field.split('.').some((segment) => segment.startsWith('$') || segment === '')) {
    throw new UnsupportedCondition(`"${node.field}" is not a property name a filter can use`);
  }
  return node.field;
}
