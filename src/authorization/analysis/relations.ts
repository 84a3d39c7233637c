/**
 * Which steps of a dotted path are to-many relations (policy analysis). CASL reads a path through
 * a to-many relation (an array, a MikroORM collection) as "some element": `{ 'members.user_id': 5 }`
 * holds when some member's `user_id` is 5, two conditions on such a path may be met by two
 * different elements, and `$ne`/`$nin` mean "no element". The analysis needs to know which steps
 * are arrays: from the application's MikroORM metadata (entities.ts) when it has it; otherwise a
 * step is `unknown`, and the analysis tries both readings (an object, or an array of them), so that
 * what it claims holds whichever the step is.
 */

export type RelationKind = 'one' | 'many' | 'unknown';

/** For a subject type, the kind of the step a path prefix (`project`, `project.members`) ends on. */
export type KindOf = (prefix: string) => RelationKind;

export interface PropertyKind {
  kind: RelationKind | 'scalar';
  /** The entity a relation leads to. */
  target?: string | undefined;
}

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
