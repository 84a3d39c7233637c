/**
 * How an ability decides about one object, for the guards and for `explain` alike: CASL's
 * deciding rule, the highest-priority rule that applies. Whether a rule applies (a field the
 * object lacks, a value of another type) is the conditions matcher's to say (matcher.ts), so that
 * CASL's own selection skips a rule that cannot apply and a lower rule decides, as `can` does.
 */
import { subject as asSubject } from '@casl/ability';
import type { AppAbility } from './ability-types.js';
import { INDEXED_FROM } from './indexed-ability.js';
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
    const type = ability.detectSubjectType(target as never) as string;
    const scopesAllow = () => decide(ability.scopes, action, target, field).allowed;
    const rule = ability.decidingRule(owner.rule, scopesAllow, action, type, field);
    return rule === owner.rule ? owner : { allowed: false, rule };
  }
  const rule = ability.relevantRuleFor(action, target, field) ?? null;
  return { allowed: rule !== null && !rule.inverted, rule };
}

/**
 * `decide` for many objects of one subject type, action and field (the rows of a flush): the rules
 * CASL tries are looked up once, not for each object, and the objects are not cast to the type.
 * The answer is `decide`'s, object for object: CASL's own loop over the same list, or for many
 * rules the ability's index (indexed-ability.ts), which needs the object cast
 * (CASL's `subject`, which marks it).
 */
export function decider(
  ability: AppAbility,
  action: string,
  type: string,
  field?: string,
): (target: object) => Decision {
  if (ability instanceof ScopedAbility) {
    const owner = decider(ability.owner, action, type, field);
    const scopes = decider(ability.scopes, action, type, field);
    return (target) => {
      const decision = owner(target);
      const rule = ability.decidingRule(decision.rule, () => scopes(target).allowed, action, type, field);
      return rule === decision.rule ? decision : { allowed: false, rule };
    };
  }
  const rules = ability.rulesFor(action, type as never, field) as readonly AppRuleOf[];
  if (rules.length >= INDEXED_FROM) return (target) => decide(ability, action, asSubject(type, target), field);
  return (target) => {
    for (const rule of rules) if (rule.matchesConditions(target as never)) return { allowed: !rule.inverted, rule };
    return { allowed: false, rule: null };
  };
}

/** The value at a dotted path, or undefined (a path through a list finds nothing). */
export function valueAt(object: object, path: string): unknown {
  let value: unknown = object;
  for (const key of path.split('.'))
    value = value !== null && typeof value === 'object' ? (value as Record<string, unknown>)[key] : undefined;
  return value;
}
