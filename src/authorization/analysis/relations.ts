/**
 * Which steps of a dotted path are to-many relations (policy analysis). CASL reads a path through
 * a to-many relation (an array, a MikroORM collection) as "some element": `{ 'members.user_id': 5 }`
 * holds when some member's `user_id` is 5, two conditions on such a path may be met by two
 * different elements, and `$ne`/`$nin` mean "no element". The analysis needs to know which steps
 * are arrays: from the application's MikroORM metadata (entities.ts) when it has it; otherwise a
 * step is `unknown`, and the analysis tries both readings (an object, or an array of them), so that
 * what it claims holds whichever the step is.
 */

import type { ColumnType } from '../column-types.js';

export type RelationKind = 'one' | 'many' | 'unknown';

/** For a subject type, the kind of the step a path prefix (`project`, `project.members`) ends on. */
export type KindOf = (prefix: string) => RelationKind;

export interface PropertyKind {
  kind: RelationKind | 'scalar';
  /** The entity a relation leads to. */
  target?: string | undefined;
  /** A column's type (column-types.ts), its elements' for a list; undefined for a type the metadata does not say. */
  column?: ColumnType | undefined;
  /** A column holding a list of values (an array column). */
  list?: boolean;
  nullable?: boolean;
  /** A number column of integers. */
  integer?: boolean;
}

/**
 * What a path (`amount`, `project.budget`) holds on an entity, when the metadata says: values of
 * `column`'s type (`null` only where `nullable`), or, for `list`, a list of them (an array column,
 * or a to-many relation named as a whole, whose elements may be anything).
 */
export interface FieldType {
  column: ColumnType | undefined;
  list: boolean;
  nullable: boolean;
  integer?: boolean;
}

/** For a subject type, what a path holds; undefined where the metadata does not say. */
export type TypeOf = (path: string) => FieldType | undefined;

/** Nothing known: every value is tried. */
export const NO_TYPES: TypeOf = () => undefined;

/** Entity name to its properties' kinds. */
export type EntityRelations = ReadonlyMap<string, ReadonlyMap<string, PropertyKind>>;

/** Every step unknown: both readings. */
export const UNKNOWN_KINDS: KindOf = () => 'unknown';

/**
 * The kinds of the steps of paths on subject type `type`: a relation of a known entity is `one` or
 * `many`; anything else (a type or property the metadata does not know, a JSON column, `all`) is
 * `unknown`.
 */
export function kindsFor(relations: EntityRelations | undefined, type: string): KindOf {
  if (!relations?.has(type)) return UNKNOWN_KINDS;
  return (prefix) => {
    let entity: string | undefined = type;
    const segments = prefix.split('.');
    for (const [index, segment] of segments.entries()) {
      const property: PropertyKind | undefined = entity === undefined ? undefined : relations.get(entity)?.get(segment);
      if (!property || property.kind === 'scalar' || property.kind === 'unknown') return 'unknown';
      if (index === segments.length - 1) return property.kind;
      entity = property.target;
    }
    return 'unknown';
  };
}

/** The types of the paths on subject type `type`: its columns', through its relations (an element's, through a to-many one). */
export function typesFor(relations: EntityRelations | undefined, type: string): TypeOf {
  if (!relations?.has(type)) return NO_TYPES;
  return (path) => {
    let entity: string | undefined = type;
    const segments = path.split('.');
    for (const [index, segment] of segments.entries()) {
      const property: PropertyKind | undefined = entity === undefined ? undefined : relations.get(entity)?.get(segment);
      if (!property) return undefined;
      const last = index === segments.length - 1;
      // A column of a type the metadata does not say (JSON, a decimal…) may hold anything.
      if (last && property.kind === 'scalar') {
        if (property.column === undefined && !property.list) return undefined;
        const { column, list, nullable, integer } = property;
        return { column, list: list === true, nullable: nullable === true, integer: integer === true };
      }
      if (last) return property.kind === 'many' ? { column: undefined, list: true, nullable: false } : undefined;
      // Through a to-many relation, each element's column.
      if (property.kind !== 'one' && property.kind !== 'many') return undefined;
      entity = property.target;
    }
    return undefined;
  };
}
