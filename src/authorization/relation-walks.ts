/**
 * Dotted paths through an entity's relations (`project.members.user_id`), read with MikroORM's
 * metadata: which segments are relations, to-one or to-many, and what they lead to. Used by
 * `accessibleBy` to build relation filters and by the `load` guard to populate what the rules
 * read before it checks them.
 */
import { helper, ReferenceKind, Utils, wrap, type EntityMetadata } from '@mikro-orm/core';
import type { Condition, FieldCondition } from '@ucast/mongo2js';
import type { AppAbility } from './ability-types.js';

/** A path follows at most this many relations: recursive hierarchies (a folder in a folder, to any depth) are not supported. */
export const MAX_RELATIONS = 4;

export interface Relation {
  name: string;
  /** To-many (a collection: 1:m, m:n), or to-one (m:1, 1:1). */
  many: boolean;
  target: EntityMetadata;
}

export interface WalkedPath {
  /** The relations the path follows, from the entity on. */
  relations: Relation[];
  /** The entity the rest of the path is read on: the last relation's target, or the entity itself. */
  meta: EntityMetadata;
  /** The segments after the last relation (one scalar property, for a well-formed field path). */
  rest: string[];
}

const TO_MANY: string[] = [ReferenceKind.ONE_TO_MANY, ReferenceKind.MANY_TO_MANY];
const TO_ONE: string[] = [ReferenceKind.MANY_TO_ONE, ReferenceKind.ONE_TO_ONE];

/** Follows the leading segments of `path` that are relations of `meta`. */
export function walkPath(meta: EntityMetadata, path: string): WalkedPath {
  const segments = path.split('.');
  const relations: Relation[] = [];
  let current = meta;
  while (segments.length > 0) {
    const property = Object.hasOwn(current.properties, segments[0]!) ? current.properties[segments[0]!] : undefined;
    if (!property || !property.targetMeta || ![...TO_ONE, ...TO_MANY].includes(property.kind)) break;
    relations.push({ name: property.name, many: TO_MANY.includes(property.kind), target: property.targetMeta });
    current = property.targetMeta;
    segments.shift();
  }
  return { relations, meta: current, rest: segments };
}

/** Whether `name` is a column of `meta` that a filter can compare (a scalar property, not a relation or an embeddable). */
export function isScalar(meta: EntityMetadata, name: string): boolean {
  return Object.hasOwn(meta.properties, name) && meta.properties[name]!.kind === ReferenceKind.SCALAR;
}

/**
 * The relations the conditions read, as MikroORM populate hints (`['project.members']`): every
 * field path and `$elemMatch` path of `condition`, walked on `meta`. What is no relation is left
 * out (a plain field needs nothing loaded).
 */
export function relationHints(
  meta: EntityMetadata,
  condition: Condition,
  prefix = '',
  hints = new Set<string>(),
): Set<string> {
  const value = (condition as { value?: unknown }).value;
  if (Array.isArray(value)) {
    for (const child of value)
      if (child && typeof child === 'object' && 'operator' in child)
        relationHints(meta, child as Condition, prefix, hints);
    return hints;
  }
  const field = (condition as FieldCondition).field;
  if (typeof field !== 'string') return hints;
  const walked = walkPath(meta, field);
  const path = walked.relations.map((relation) => relation.name).join('.');
  if (path) hints.add(prefix + path);
  if (condition.operator === 'elemMatch' && walked.rest.length === 0 && value && typeof value === 'object') {
    relationHints(walked.meta, value as Condition, path ? `${prefix}${path}.` : prefix, hints);
  }
  return hints;
}

/**
 * Loads, on a MikroORM entity, every relation that the rules for `action` on `subjectType` read
 * (through its own EntityManager: `wrap(entity).populate`, which leaves what is loaded already),
 * so that no rule meets a relation that is not loaded. A plain object is left as it is, and so is
 * an entity no EntityManager manages (a rule that meets a relation it lacks throws, naming it).
 */
export async function populateRuleRelations(
  ability: AppAbility,
  action: string,
  subjectType: string,
  resource: object,
): Promise<void> {
  if (!Utils.isEntity(resource) || !helper(resource).__em) return;
  const meta = helper(resource).__meta;
  const hints = new Set<string>();
  for (const rule of ability.possibleRulesFor(action, subjectType))
    if (rule.ast) relationHints(meta, rule.ast, '', hints);
  // Joined, as MikroORM 6 loads by default (7's default, 'balanced', queries each to-many relation apart).
  if (hints.size > 0) await wrap(resource).populate([...hints] as never, { strategy: 'joined' } as never);
}
