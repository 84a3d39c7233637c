/**
 * Why a user may or may not do something: the rule that decided (CASL's `relevantRuleFor`, the
 * matcher saying which rules apply: matcher.ts), with the role it came from and the file it was loaded
 * from, or the named policy that decided; for a refusal, why each rule that could have allowed it
 * did not (why-not.ts). An action or subject type that no rule names is a TypeError (known-names.ts).
 */
import { subject as asSubject } from '@casl/ability';
import type { AbilityFactory } from './abilities.js';
import type { AppAbility } from './ability-types.js';
import { POLICY_ACTION } from './policy-rules.js';
import { decide } from './decision.js';
import { isScopeRefusal, SCOPE_REFUSAL, ScopedAbility } from './scoped-ability.js';
import type { PolicyRegistry } from './policies.js';
import type { Principal } from './principal.js';
import type { RoleRule, RoleRules, RuleSource } from './role-rules.js';
import { whyNot, type FailedCondition } from './why-not.js';

export type { FailedCondition } from './why-not.js';

/** A rule as `explain` shows it. */
export interface ExplainedRule {
  /** The role that defined it; null for a rule of no role (none of ours). */
  role: string | null;
  /** Its position in the role's own rules, from 1. */
  index?: number;
  action: string | string[];
  subject: string | string[];
  conditions?: Record<string, unknown>;
  fields?: string | string[];
  inverted: boolean;
  reason?: string;
  /** The file it was loaded from, for rules from JSON files. */
  source?: string;
  /** True for a rule of an organization role (its conditions show the tenant condition added). */
  org_role?: true;
}

export interface Explanation {
  allowed: boolean;
  /** The deciding rule, or null when no rule applies (denied by default) or a policy decided. */
  rule: ExplainedRule | null;
  /** The named policy that decided, for a policy subject. */
  policy?: string;
  /**
   * For a refusal by the rules: each rule that could have allowed the action on that subject type
   * (in the order defined), with the first of its conditions that failed, or the inverted rule
   * that refused although it matched. Empty when no rule allows it at all.
   */
  why_not?: WhyNotRule[];
  /**
   * `'scopes'`: the user's roles allow it, and the token's scopes do not (scoped-ability.ts);
   * `rule` is then the scopes' refusal (role null, with its reason).
   */
  refused_by?: 'scopes';
}

/** A rule that could have allowed it, and why it did not. */
export interface WhyNotRule {
  rule: ExplainedRule;
  /** The first of its conditions the subject does not meet. */
  failed?: FailedCondition;
  /** The inverted rule that decided, when this rule's conditions were met. */
  refused_by?: ExplainedRule;
}

export interface ExplainDeps {
  abilities: AbilityFactory;
  roles: RoleRules;
  policies: PolicyRegistry;
}

export function explain(
  { abilities, roles, policies }: ExplainDeps,
  user: Principal,
  action: string,
  subjectType: string,
  context: Record<string, unknown> = {},
  field?: string,
  /** The ability to explain, when not the user's everywhere (in an organization). */
  ability: AppAbility = abilities.abilityFor(user),
): Explanation {
  abilities.assertKnownNames('explain', action, subjectType);
  if (policies.has(subjectType)) {
    const allowed = policies.check(subjectType, user, context);
    // A scoped token needs a scope granting `satisfy` on the policy too (guards.ts).
    if (allowed && ability instanceof ScopedAbility && !ability.scopes.can(POLICY_ACTION, subjectType)) {
      return {
        allowed: false,
        rule: { role: null, action: POLICY_ACTION, subject: subjectType, inverted: true, reason: SCOPE_REFUSAL },
        policy: subjectType,
        refused_by: 'scopes',
      };
    }
    return { allowed, rule: null, policy: subjectType };
  }
  const { allowed, rule } = decide(ability, action, asSubject(subjectType, { ...context }), field);
  const show = (origin: object) => explained(origin as RoleRule, (of) => roles.sourceOf(of) ?? abilities.sourceOf(of));
  const explanation: Explanation = { allowed, rule: rule ? show(rule.origin) : null };
  if (rule && isScopeRefusal(rule.origin)) explanation.refused_by = 'scopes';
  else if (!allowed) {
    explanation.why_not = whyNot(ability, action, subjectType, context, field, rule).map(
      ({ rule: allowing, failed, refused_by }) => ({
        rule: show(allowing.origin),
        ...(failed && { failed }),
        ...(refused_by && { refused_by: show(refused_by.origin) }),
      }),
    );
  }
  return explanation;
}

function explained(origin: RoleRule, sourceOf: (rule: object) => RuleSource | undefined): ExplainedRule {
  const source = sourceOf(origin);
  const rule: ExplainedRule = {
    role: source?.role ?? null,
    ...(source && { index: source.index }),
    action: origin.action,
    subject: origin.subject as string | string[],
    inverted: origin.inverted === true,
  };
  if (origin.conditions) rule.conditions = origin.conditions as Record<string, unknown>;
  if (origin.fields) rule.fields = origin.fields;
  if (origin.reason) rule.reason = origin.reason;
  if (source?.source) rule.source = source.source;
  if (source?.org) rule.org_role = true;
  return rule;
}
