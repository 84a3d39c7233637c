/**
 * A CASL ability that finds the deciding rule among many faster: the rules CASL would try for an
 * (action, subject type, field) are indexed by the field that most of them test for equality at
 * their top level (`{ org_id: 5, … }`, as organization roles' rules all do). Asked about an
 * object, it tries, in CASL's priority order, only the rules that do not test that field and those
 * that test it for the object's own value: the others cannot apply (an equality fails, the field
 * is missing, or its value is of another type: matcher.ts). The answer is CASL's own, rule for
 * rule; below a few rules, CASL's own loop is as fast and is used as is.
 *
 * In an organization, the organization roles' rules are not candidates at all for a subject type
 * without the tenant field (`User`, tenant.ts): not even `can('update', 'User')`, asked of the
 * type, or the console's reach count them.
 */
import { Ability, fieldPatternMatcher, type MongoQuery, type Subject } from '@casl/ability';
import type { AppAbility, AppRule } from './ability-types.js';
import { conditionsMatcher, step } from './conditions.js';

type Rule = ReturnType<AppAbility['relevantRuleFor']> & object;

/** From this many candidate rules on, an index pays for itself. */
export const INDEXED_FROM = 12;

interface Index {
  /** What CASL handed out for (action, type) when it was built: the index holds while that does. */
  source: readonly unknown[];
  field: string;
  /** The rules to try for an object whose field holds this value. */
  byValue: Map<unknown, readonly Rule[]>;
  /** Each rule's value, for the rules that test the field. */
  keys: Map<Rule, unknown>;
  rules: readonly Rule[];
}

/** The primitive a rule's conditions test `field` for equality with at their top level, or undefined. */
function keyOf(conditions: unknown, field: string): unknown {
  if (conditions === null || typeof conditions !== 'object') return undefined;
  let value = (conditions as Record<string, unknown>)[field];
  const operators = value !== null && typeof value === 'object' && !Array.isArray(value) ? Object.keys(value) : [];
  if (operators.length === 1 && operators[0] === '$eq') value = (value as { $eq: unknown }).$eq;
  return typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean' ? value : undefined;
}

/** The index of the rules by the field most of them test for equality, or null when none does for enough of them. */
function indexOf(rules: readonly Rule[]): Index | null {
  const counts = new Map<string, number>();
  for (const rule of rules) {
    for (const field of Object.keys((rule.conditions as object | undefined) ?? {})) {
      const plain = !field.includes('.') && !field.startsWith('$');
      if (plain && keyOf(rule.conditions, field) !== undefined) counts.set(field, (counts.get(field) ?? 0) + 1);
    }
  }
  const [field, count] = [...counts].sort((a, b) => b[1] - a[1])[0] ?? ['', 0];
  if (count < INDEXED_FROM / 2) return null;
  const keys = new Map<Rule, unknown>();
  for (const rule of rules) {
    const key = keyOf(rule.conditions, field);
    if (key !== undefined) keys.set(rule, key);
  }
  return { source: [], field, byValue: new Map(), keys, rules };
}

/** CASL's own `relevantRuleFor`, on this ability. */
type RelevantRule = (this: Ability<never, MongoQuery>, ...args: unknown[]) => Rule | null;
const caslRelevantRule = Ability.prototype.relevantRuleFor as unknown as RelevantRule;

/** Rules (raw, as given) that reach no subject of these types: an organization's roles' and the types without a tenant field. */
export interface Unreached {
  rules: ReadonlySet<object>;
  types: ReadonlySet<string>;
}

type PossibleRules = (this: Ability<never, MongoQuery>, ...args: unknown[]) => readonly Rule[];
const caslPossibleRules = Ability.prototype.possibleRulesFor as unknown as PossibleRules;

export class IndexedAbility extends Ability<never, MongoQuery> {
  private readonly indexes = new Map<string, Index | null>();
  private readonly reached = new Map<string, readonly Rule[]>();

  constructor(
    rules: AppRule[],
    private readonly unreached?: Unreached,
  ) {
    super(rules as never[], { conditionsMatcher, fieldMatcher: fieldPatternMatcher });
    this.on('updated', () => {
      this.indexes.clear();
      this.reached.clear();
    });
  }

  override possibleRulesFor(action: string, subjectType?: string): never[];
  override possibleRulesFor(...args: [string, string?]): readonly Rule[] {
    const [action, type] = args;
    const all = caslPossibleRules.apply(this, args);
    const unreached = this.unreached;
    if (!unreached || type === undefined || !unreached.types.has(type)) return all;
    const key = `${action}\u0000${type}`;
    let list = this.reached.get(key);
    if (!list) this.reached.set(key, (list = Object.freeze(all.filter((rule) => !unreached.rules.has(rule.origin)))));
    return list;
  }

  override relevantRuleFor(action: string, subject?: Subject, field?: string): never;
  override relevantRuleFor(...args: [string, Subject?, string?]): Rule | null {
    const [action, subject, field] = args;
    if (subject === null || typeof subject !== 'object') return caslRelevantRule.apply(this, args);
    const type = this.detectSubjectType(subject as never) as string;
    const rules = (this as unknown as AppAbility).rulesFor(action, type as never, field) as readonly Rule[];
    // CASL's own loop, on the list already found (CASL would detect the type and find it again).
    if (rules.length < INDEXED_FROM) return firstMatching(rules, subject);
    const index = this.indexFor(action, type, field, rules);
    if (!index) return firstMatching(rules, subject);
    const value = step(subject as Record<string, unknown>, index.field);
    for (const rule of this.candidates(index, value)) if (rule.matchesConditions(subject)) return rule;
    return null;
  }

  private indexFor(action: string, type: string, field: string | undefined, rules: readonly Rule[]): Index | null {
    const key = `${action}\u0000${type}\u0000${field ?? ''}`;
    // CASL hands out the same list for (action, type) until the rules change (a field's is filtered from it anew).
    const source = (this as unknown as AppAbility).possibleRulesFor(action, type as never);
    const held = this.indexes.get(key);
    if (held !== undefined && (held === null || held.source === source)) return held;
    const index = indexOf(rules);
    if (index) index.source = source;
    this.indexes.set(key, index);
    return index;
  }

  /** The rules, in priority order, that may apply to an object whose indexed field holds `value`. */
  private candidates(index: Index, value: unknown): readonly Rule[] {
    const primitive = typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean';
    const at = primitive ? value : undefined;
    let list = index.byValue.get(at);
    if (!list) {
      list = index.rules.filter((rule) => !index.keys.has(rule) || (primitive && index.keys.get(rule) === value));
      if (index.byValue.size < 10_000) index.byValue.set(at, list);
    }
    return list;
  }
}

/** The first rule, in CASL's priority order, whose conditions apply to the object: CASL's `relevantRuleFor`. */
function firstMatching(rules: readonly Rule[], subject: object): Rule | null {
  for (const rule of rules) if (rule.matchesConditions(subject)) return rule;
  return null;
}
