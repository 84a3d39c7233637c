import type { EntityMetadata, MetadataStorage } from '@mikro-orm/core';

/** Every entity's metadata, once each: MikroORM 6's `getAll()` is an object by name, 7's a Map. */
export function everyEntity(metadata: MetadataStorage): EntityMetadata[] {
  const all = metadata.getAll() as unknown as Map<unknown, EntityMetadata> | Record<string, EntityMetadata>;
  return [...new Set(all instanceof Map ? all.values() : Object.values(all))];
}
