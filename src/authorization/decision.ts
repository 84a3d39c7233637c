/**
 * How an ability decides about one object, for the guards and for `explain` alike: CASL's
 * deciding rule (the highest-priority rule that applies), with one rule of ours on top: a
 * condition can only be met by a field the object has. A rule whose conditions name a field the
 * object lacks grants nothing (CASL alone would let `$ne` match it). Through relations, the path
 * must be there up to its end or to a NULL relation (where CASL decides, as `accessibleBy` does),
 * on every element of a list or collection it goes through.
 */
import { ITSELF, type Condition, type FieldCondition } from '@ucast/mongo2js';
import type { AppAbility } from './abilities.js';
import { step } from './conditions.js';
import { ScopedAbility } from './scoped-ability.js';

export type AppRuleOf = NonNullable<ReturnType<AppAbility['relevantRuleFor']>>;

export interface Decision {
  allowed: boolean;
  /** The rule that decided, or null when none applies (denied by default). */
  rule: AppRuleOf | null;
}

export function decide(ability: AppAbility, action: string, target: object | string, field?: string): Decision {
  // A scoped token: the owner's decision, and then the scopes' (scoped-ability.ts), each by these rules.
  if (ability instanceof ScopedAbility) {
    const owner = decide(ability.owner, action, target, field);
    if (!owner.allowed || decide(ability.scopes, action, target, field).allowed) return owner;
    return { allowed: false, rule: ability.refusalFor(action, ability.detectSubjectType(target as never) as string, field) };
  }
  const rule = ability.relevantRuleFor(action, target, field) ?? null;
  const allowed = rule !== null && !rule.inverted && (typeof target !== 'object' || !rule.ast || namesOnlyPresentFields(rule.ast, target));
  return { allowed, rule };
}

function namesOnlyPresentFields(condition: Condition, object: object): boolean {
  if (Array.isArray(condition.value) && !('field' in condition)) return condition.value.every((child: Condition) => namesOnlyPresentFields(child, object));
  const { field } = condition as FieldCondition;
  return typeof field !== 'string' || field === ITSELF || present(object, pathOf(field), 0);
}

/** Rules' field paths, split once: they are asked about on every decision (few: the rules name them). */
const paths = new Map<string, readonly string[]>();
function pathOf(field: string): readonly string[] {
  let path = paths.get(field);
  if (!path) paths.set(field, (path = field.split('.')));
  return path;
}

/** Whether the path (from `at` on) is there on `value`: to its end, or to a NULL relation; on every element of a list. */
function present(value: unknown, path: readonly string[], at: number): boolean {
  if (at === path.length) return value !== undefined;
  if (value === null) return true;
  if (Array.isArray(value)) return value.every((item) => present(item, path, at));
  if (typeof value !== 'object') return false;
  return present(step(value as Record<string, unknown>, path[at]!), path, at + 1);
}

/** The value at a dotted path, or undefined (a path through a list finds nothing). */
export function valueAt(object: object, path: string): unknown {
  let value: unknown = object;
  for (const key of path.split('.')) value = value !== null && typeof value === 'object' ? (value as Record<string, unknown>)[key] : undefined;
  return value;
}
