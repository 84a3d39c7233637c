/**
 * What the rules decide on in a row of a flush through req.em: the actions its change sets are
 * (ACTIONS), and for an action on an entity, the relations the rules follow and the properties
 * they read (kept with the ability, across flushes).
 */
import { ReferenceKind } from '@mikro-orm/core';
import type { EntityMetadata } from '@mikro-orm/core';
import { relationHints } from '../authorization/relation-walks.js';
import { ScopedAbility } from '../authorization/scoped-ability.js';
import { decidingAbility } from './access-conditions.js';
import type { Binding } from './bindings.js';

export type Row = Record<string, unknown>;
export type Action = 'create' | 'update' | 'delete';

export const ACTIONS: Record<string, Action> = {
  create: 'create',
  update: 'update',
  update_early: 'update',
  delete: 'delete',
  delete_early: 'delete',
};
export const TO_ONE: string[] = [ReferenceKind.MANY_TO_ONE, ReferenceKind.ONE_TO_ONE];

/** What the rules for `action` on `meta`'s rows read: the relations they follow, and the properties of the row itself. */
export interface RuleReads {
  hints: string[];
  props: string[];
  /** `props` as a set. */
  reads: ReadonlySet<string>;
  /** The flush check's deciders by field, made on first use (flush-check.ts): kept with the ability, across flushes. */
  deciders: Map<string | undefined, (row: Row) => boolean>;
}

/** The relations the rules for `action` on `meta`'s rows follow: every rule that may decide, those limited to fields included. */
export function ruleHints(binding: Binding, meta: EntityMetadata, action: Action): string[] {
  return ruleReads(binding, meta, action).hints;
}

export function ruleReads(binding: Binding, meta: EntityMetadata, action: Action): RuleReads {
  const ability = decidingAbility(binding, binding.bound, meta);
  const key = `${action} ${meta.className}`;
  let known = readsOf.get(ability);
  if (!known) readsOf.set(ability, (known = new Map()));
  const held = known.get(key);
  if (held) return held;
  const hints = new Set<string>();
  const props = new Set<string>();
  for (const part of ability instanceof ScopedAbility ? [ability.owner, ability.scopes] : [ability]) {
    for (const rule of part.possibleRulesFor(action, meta.className)) {
      if (!rule.ast) continue;
      relationHints(meta, rule.ast, '', hints);
      for (const field of fieldsOf(rule.ast)) props.add(field.split('.')[0]!);
    }
  }
  const names = [...props].filter((name) => Object.hasOwn(meta.properties, name));
  const reads = { hints: [...hints], props: names, reads: new Set(names), deciders: new Map() };
  known.set(key, reads);
  return reads;
}

/** What each ability's rules read, by action and entity: asked for every row of a flush. */
const readsOf = new WeakMap<object, Map<string, RuleReads>>();

/** The fields a rule's condition names (a compound's, each of its parts'). */
function fieldsOf(condition: unknown, fields: string[] = []): string[] {
  const { field, value } = condition as { field?: unknown; value?: unknown };
  if (typeof field === 'string') fields.push(field);
  else if (Array.isArray(value)) for (const part of value) fieldsOf(part, fields);
  else if (value && typeof value === 'object' && 'operator' in value) fieldsOf(value, fields);
  return fields;
}
