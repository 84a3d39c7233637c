/**
 * The application's MikroORM entities, as lint needs them: each entity's name (the subject type
 * rules name) and its properties. Found among what it is given: entity schemas (`defineEntity`,
 * `new EntitySchema`), lists of them, an ORM (`orm.getMetadata()`), and classes with decorators
 * (MikroORM's metadata storage).
 */
import { EntitySchema, MetadataStorage } from '@mikro-orm/core';

interface MetadataLike {
  className: string;
  properties: Record<string, unknown>;
}

/** Subject type to property names, for every entity found in `values` (and every decorated class). */
export function entityProperties(values: Iterable<unknown>): Map<string, Set<string>> {
  const found = new Map<string, Set<string>>();
  const add = (meta: MetadataLike | undefined) => {
    if (meta && typeof meta.className === 'string' && meta.properties) found.set(meta.className, new Set(Object.keys(meta.properties)));
  };
  const visit = (value: unknown, depth: number): void => {
    if (value instanceof EntitySchema) return add(value.meta as MetadataLike);
    if (Array.isArray(value) && depth < 2) return value.forEach((item) => visit(item, depth + 1));
    const metadata = (value as { getMetadata?: () => { getAll?: () => Record<string, MetadataLike> } } | null)?.getMetadata;
    if (typeof metadata === 'function' && value !== EntitySchema) {
      const all = metadata.call(value)?.getAll?.();
      if (all) Object.values(all).forEach(add);
    }
  };
  for (const meta of Object.values(MetadataStorage.getMetadata() as Record<string, MetadataLike>)) add(meta);
  for (const value of values) visit(value, 0);
  return found;
}
