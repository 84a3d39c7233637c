/**
 * The application's MikroORM entities, as policy analysis needs them: each entity's name (the
 * subject type rules name), its properties (lint: the tenant field), and which of them are
 * relations to one or to many entities (relations.ts). Found among what it is given: entity
 * schemas (`defineEntity`, `new EntitySchema`), lists of them, an ORM (`orm.getMetadata()`), and
 * classes with decorators (MikroORM's metadata storage).
 */
import { EntitySchema, MetadataStorage } from '@mikro-orm/core';
import { columnType, isIntegerColumn, listColumn } from '../column-types.js';
import { shapeOf, type EntityShape } from '../rule-values.js';
import type { EntityRelations, PropertyKind } from './relations.js';

interface PropertyLike {
  kind?: string;
  array?: boolean;
  nullable?: boolean;
  type?: unknown;
  runtimeType?: unknown;
  entity?: unknown;
  targetMeta?: { className?: string };
}

interface MetadataLike {
  className: string;
  properties: Record<string, PropertyLike>;
}

/** Subject type to the entity's columns and relations, for the check of rule values against column types (rule-values.ts). */
export function entityShapes(values: Iterable<unknown>): Map<string, EntityShape> {
  const found = metadataOf(values);
  const resolve = (property: PropertyLike) => {
    const target = targetOf(property);
    return target === undefined ? undefined : found.get(target);
  };
  return new Map([...found].map(([name, meta]) => [name, shapeOf(meta, resolve)]));
}

/** Subject type to property names, for every entity found in `values` (and every decorated class). */
export function entityProperties(values: Iterable<unknown>): Map<string, Set<string>> {
  return new Map([...metadataOf(values)].map(([name, meta]) => [name, new Set(Object.keys(meta.properties))]));
}

/** Subject type to its properties' kinds (`many` for one-to-many and many-to-many relations), and its columns' types. */
export function entityRelations(values: Iterable<unknown>): EntityRelations {
  return new Map(
    [...metadataOf(values)].map(([name, meta]) => [
      name,
      new Map(Object.entries(meta.properties).map(([property, options]) => [property, kindOf(options)])),
    ]),
  );
}

function kindOf(property: PropertyLike): PropertyKind {
  switch (property.kind) {
    case '1:m':
    case 'm:n':
      return { kind: 'many', target: targetOf(property) };
    case 'm:1':
    case '1:1':
      return { kind: 'one', target: targetOf(property) };
    case 'embedded':
      return { kind: property.array ? 'many' : 'one', target: targetOf(property) };
    default: {
      const list = listColumn(property);
      const column = list ? list.element : columnType(property);
      const integer = column === 'number' && isIntegerColumn(property);
      return { kind: 'scalar', column, list: list !== undefined, nullable: property.nullable === true, integer };
    }
  }
}

/** The entity a relation leads to: discovered metadata names it; a schema's own options give it as a function. */
function targetOf(property: PropertyLike): string | undefined {
  if (property.targetMeta?.className) return property.targetMeta.className;
  let target: unknown = property.entity ?? property.type;
  // `() => Project` (an arrow function has no prototype; a class has one).
  if (typeof target === 'function' && target.prototype === undefined) {
    try {
      target = (target as () => unknown)();
    } catch {
      return undefined;
    }
  }
  if (target instanceof EntitySchema) return target.meta.className;
  if (typeof target === 'function') return target.name;
  return typeof target === 'string' ? target : undefined;
}

function metadataOf(values: Iterable<unknown>): Map<string, MetadataLike> {
  const found = new Map<string, MetadataLike>();
  const add = (meta: MetadataLike | undefined) => {
    if (meta && typeof meta.className === 'string' && meta.properties) found.set(meta.className, meta);
  };
  const visit = (value: unknown, depth: number): void => {
    if (value instanceof EntitySchema) return add(value.meta as unknown as MetadataLike);
    if (Array.isArray(value) && depth < 2) return value.forEach((item) => visit(item, depth + 1));
    type All = Record<string, MetadataLike> | Map<unknown, MetadataLike>; // MikroORM 6's object, 7's Map
    const metadata = (value as { getMetadata?: () => { getAll?: () => All } } | null)?.getMetadata;
    if (typeof metadata === 'function' && value !== EntitySchema) {
      const all = metadata.call(value)?.getAll?.();
      if (all) (all instanceof Map ? [...all.values()] : Object.values(all)).forEach(add);
    }
  };
  for (const meta of Object.values(MetadataStorage.getMetadata() as Record<string, MetadataLike>)) add(meta);
  for (const value of values) visit(value, 0);
  return found;
}
