/**
 * A scoped token's ability: its owner's ability (in the organization, if any) intersected with
 * the union of its scopes' rules. Two CASL abilities, asked together, rather than one built from
 * both: the intersection of two rule lists has no rule list of its own in general, and this way
 * each keeps its own rules, reasons and sources, and nothing is rebuilt per token.
 *
 * It is a CASL ability (a subclass, so that `req.ability` keeps its type and every method), whose
 * answers are the conjunction:
 *
 * - `can(action, subject, field)`: both allow;
 * - `relevantRuleFor`: the owner's deciding rule when it refuses; else, when the scopes refuse, a
 *   refusal rule of the scopes (see below); else the owner's rule;
 * - `rulesFor`, `possibleRulesFor`: the owner's rules below one inverted rule of the scopes, whose
 *   conditions are "none of the scopes' rules matches" (`$nor`; none at all when a scope grants
 *   without conditions, an unconditional one when no scope grants). CASL's priority order makes
 *   that list mean exactly "the scopes allow, and then the owner decides", so rule walkers
 *   (`rulesToAST`, `permittedFieldsOf`, CASL's own `can`) keep working. A scope rule with `fields`
 *   is exact through `rulesFor(action, type, field)`; `possibleRulesFor` (no field) and
 *   `permittedFieldsOf` read the scopes' field-less rules, so `auth.permittedFields` intersects
 *   the two abilities' fields itself.
 *
 * decision.ts, filters.ts and `auth.permittedFields` ask the two parts directly (the `$and` of
 * two filters, the intersection of two field lists).
 */
import { Ability, createMongoAbility, fieldPatternMatcher, type MongoQuery, type Subject } from '@casl/ability';
import { permittedFieldsOf } from '@casl/ability/extra';
import type { AppAbility } from './ability-types.js';
import { conditionsMatcher } from './conditions.js';

type AnyRule = ReturnType<AppAbility['relevantRuleFor']> & object;

/** What a refusal by the token's scopes says, in a 403 and in `explain`. */
export const SCOPE_REFUSAL = "This token's scopes do not allow this";

/** The raw rules the scopes' refusals are made of, to tell them from the owner's. */
const refusals = new WeakSet<object>();

export function isScopeRefusal(origin: object | undefined | null): boolean {
  return origin != null && refusals.has(origin);
}

export class ScopedAbility extends Ability<never, MongoQuery> {
  private readonly lists = new Map<string, readonly AnyRule[]>();

  constructor(
    /** The owner's ability (in the organization, after `orgRequired`). */
    readonly owner: AppAbility,
    /** The union of the token's scopes' rules, for its owner. */
    readonly scopes: AppAbility,
  ) {
    super([], { conditionsMatcher, fieldMatcher: fieldPatternMatcher });
  }

  /** The owner's raw rules (the scopes' are `scopes.rules`). */
  override get rules() {
    return this.owner.rules as never[];
  }

  override can(action: string, subject?: Subject, field?: string): boolean;
  override can(...args: [string, Subject?, string?]): boolean {
    const [action, subject, field] = args;
    return this.owner.can(action, subject as never, field) && this.scopes.can(action, subject as never, field);
  }

  override cannot(action: string, subject?: Subject, field?: string): boolean;
  override cannot(...args: [string, Subject?, string?]): boolean {
    return !this.can(...args);
  }

  override relevantRuleFor(action: string, subject?: Subject, field?: string): never;
  override relevantRuleFor(...args: [string, Subject?, string?]): AnyRule | null {
    const [action, subject, field] = args;
    const type = this.detectSubjectType(subject as never) as string;
    const owner = this.owner.relevantRuleFor(action, subject as never, field);
    return this.decidingRule(owner, () => this.scopes.can(action, subject as never, field), action, type, field);
  }

  /**
   * The conjunction's deciding rule, from the owner's: the owner's when it refuses (or no rule
   * does) or the scopes allow too; else the scopes' refusal. `relevantRuleFor` and decision.ts's
   * `decider` both decide by it.
   */
  decidingRule(
    owner: AnyRule | null,
    scopesAllow: () => boolean,
    action: string,
    subjectType: string,
    field?: string,
  ): AnyRule | null {
    if (!owner || owner.inverted || scopesAllow()) return owner;
    return this.refusalFor(action, subjectType, field);
  }

  /** The scopes' refusal (an inverted rule) for this action, type and field. */
  refusalFor(action: string, subjectType: string, field?: string): AnyRule {
    return this.rulesFor(action, subjectType, field)[0]!;
  }

  override rulesFor(action: string, subjectType?: string, field?: string): never[];
  override rulesFor(...args: [string, string?, string?]): readonly AnyRule[] {
    return this.listFor(args[0], args[1] ?? 'all', args[2], true) as never[];
  }

  override possibleRulesFor(action: string, subjectType?: string): never[];
  override possibleRulesFor(...args: [string, string?]): readonly AnyRule[] {
    return this.listFor(args[0], args[1] ?? 'all', undefined, false) as never[];
  }

  override actionsFor(subjectType: string): string[];
  override actionsFor(...args: [string]): string[] {
    return this.owner.actionsFor(args[0] as never);
  }

  private listFor(
    action: string,
    subjectType: string,
    field: string | undefined,
    byField: boolean,
  ): readonly AnyRule[] {
    const key = `${byField ? 'f' : 'p'}\u0000${action}\u0000${subjectType}\u0000${field ?? ''}`;
    let list = this.lists.get(key);
    if (list) return list;
    const owner = byField
      ? this.owner.rulesFor(action, subjectType as never, field)
      : this.owner.possibleRulesFor(action, subjectType as never);
    const grants = (this.scopes.rulesFor(action, subjectType as never, field) as readonly AnyRule[]).filter(
      (rule) => !rule.inverted,
    );
    if (grants.some((rule) => !rule.conditions)) list = owner;
    else list = [refusal(action, subjectType, grants), ...owner];
    this.lists.set(key, list);
    return list;
  }
}

/**
 * An inverted rule matching what none of the scopes' granting rules match (everything, when there
 * are none). Its conditions say so (`$nor` of the grants'), for whoever reads them; but as
 * conditions they would not apply to an object that lacks a field they name (matcher.ts), where no
 * grant applies either: the scopes refuse it, and so must this rule. So it is matched by asking
 * the grants themselves whether one applies, exactly as the scopes' `can` does.
 */
function refusal(action: string, subjectType: string, grants: readonly AnyRule[]): AnyRule {
  const raw = {
    action,
    subject: subjectType,
    inverted: true,
    reason: SCOPE_REFUSAL,
    ...(grants.length > 0 && { conditions: { $nor: grants.map((rule) => rule.conditions) } }),
  };
  refusals.add(raw);
  const noneGrants = ((conditions: Parameters<typeof conditionsMatcher>[0]) => {
    const { ast } = conditionsMatcher(conditions);
    return Object.assign((object: object) => !grants.some((grant) => grant.matchesConditions(object)), { ast });
  }) as typeof conditionsMatcher;
  const [rule] = createMongoAbility([raw] as never[], { conditionsMatcher: noneGrants }).rulesFor(action, subjectType);
  return rule as AnyRule;
}

/**
 * The fields the ability permits on the subject (`every` for a rule without `fields`); a scoped
 * token's: those both its owner's and its scopes' permit.
 */
export function permittedFieldsIn(
  ability: AppAbility,
  action: string,
  subject: string | object,
  every: readonly string[],
): string[] {
  if (ability instanceof ScopedAbility) {
    const granted = new Set(permittedFieldsIn(ability.scopes, action, subject, every));
    return permittedFieldsIn(ability.owner, action, subject, every).filter((field) => granted.has(field));
  }
  return permittedFieldsOf(ability, action, subject, { fieldsFrom: (rule) => rule.fields ?? [...every] });
}
