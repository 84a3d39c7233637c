/**
 * How an ability decides about one object, for the guards and for `explain` alike: CASL's
 * deciding rule, the highest-priority rule that applies. Whether a rule applies (a field the
 * object lacks, a value of another type) is the conditions matcher's to say (matcher.ts), so that
 * CASL's own selection skips a rule that cannot apply and a lower rule decides, as `can` does.
 */
import type { AppAbility } from './abilities.js';
import { ScopedAbility } from './scoped-ability.js';

export type AppRuleOf = NonNullable<ReturnType<AppAbility['relevantRuleFor']>>;

export interface Decision {
  allowed: boolean;
  /** The rule that decided, or null when none applies (denied by default). */
  rule: AppRuleOf | null;
}

export function decide(ability: AppAbility, action: string, target: object | string, field?: string): Decision {
  // A scoped token: the owner's decision, and then the scopes' (scoped-ability.ts).
  if (ability instanceof ScopedAbility) {
    const owner = decide(ability.owner, action, target, field);
    if (!owner.allowed || decide(ability.scopes, action, target, field).allowed) return owner;
    return { allowed: false, rule: ability.refusalFor(action, ability.detectSubjectType(target as never) as string, field) };
  }
  const rule = ability.relevantRuleFor(action, target, field) ?? null;
  return { allowed: rule !== null && !rule.inverted, rule };
}

/** The value at a dotted path, or undefined (a path through a list finds nothing). */
export function valueAt(object: object, path: string): unknown {
  let value: unknown = object;
  for (const key of path.split('.')) value = value !== null && typeof value === 'object' ? (value as Record<string, unknown>)[key] : undefined;
  return value;
}
