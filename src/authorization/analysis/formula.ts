/**
 * A rule's conditions, and what a list of rules allows, as a boolean formula over one-field tests
 * (policy diff). The conditions are read by CASL itself (`rule.ast`, parsed with the package's
 * matcher), so the formula means what `can` means; only the operators whose meaning the solver
 * (satisfy.ts) knows exactly are accepted: `$eq $ne $in $nin $lt $lte $gt $gte`, combined with
 * `$and $or $nor $not`, on plain or dotted paths. Anything else is `OutsideFragment`.
 *
 * Placeholders (`${user.id}`, `${org.id}`, …) stay free variables: rules are interpolated with
 * marker strings (`variable('user.id')`), which the solver gives values of their own.
 */
import type { Condition, FieldCondition } from '@ucast/mongo2js';
import { conditionsMatcher, step } from '../conditions.js';
import { appliesTo } from '../matcher.js';

/** `applies`: the path is there and its values have the types of `value`'s (matcher.ts), a need of the rule rather than a test. */
export type Op = 'eq' | 'in' | 'lt' | 'lte' | 'gt' | 'gte' | 'applies';

/** `field op value`, or its negation. */
export interface Literal {
  kind: 'literal';
  field: string;
  op: Op;
  value: unknown;
  negated: boolean;
}

export interface Junction {
  kind: 'and' | 'or';
  items: Formula[];
}

export type Formula = boolean | Literal | Junction;

/** A rule, or an operator, the analysis cannot decide exactly. */
export class OutsideFragment extends Error {}

const MARK = '\u0000';

/** The marker a placeholder is interpolated as: `variable('user.id')`. */
export function variable(name: string): string {
  return `${MARK}${name}`;
}

/** The placeholder a marker stands for, or undefined for any other value. */
export function variableName(value: unknown): string | undefined {
  return typeof value === 'string' && value.startsWith(MARK) ? value.slice(MARK.length) : undefined;
}

const FIELD_OPS: Record<string, { op: Op; negated: boolean }> = {
  eq: { op: 'eq', negated: false },
  ne: { op: 'eq', negated: true },
  in: { op: 'in', negated: false },
  nin: { op: 'in', negated: true },
  lt: { op: 'lt', negated: false },
  lte: { op: 'lte', negated: false },
  gt: { op: 'gt', negated: false },
  gte: { op: 'gte', negated: false },
};

/** The condition as a formula, negations pushed down to the literals. */
export function formulaOf(condition: Condition, negate = false): Formula {
  const { operator } = condition;
  if (operator === 'and' || operator === 'or') {
    const items = (condition.value as Condition[]).map((item) => formulaOf(item, negate));
    return (operator === 'and') !== negate ? and(items) : or(items);
  }
  if (operator === 'nor') return formulaOf({ operator: 'or', value: condition.value } as Condition, !negate);
  if (operator === 'not') return formulaOf((condition.value as Condition[])[0]!, !negate);
  const known = FIELD_OPS[operator];
  if (!known) throw new OutsideFragment(operator === 'where' ? 'a named policy is code' : `the operator $${operator}`);
  const { field, value } = condition as FieldCondition;
  if (typeof field !== 'string') throw new OutsideFragment(`$${operator} without a field`);
  checkValue(value);
  return { kind: 'literal', field, op: known.op, value, negated: known.negated !== negate };
}

/**
 * What a rule allows, as the matcher decides it: its needs (each path it names there, each value
 * it compares of the path's type: `applies` literals) and its conditions.
 */
export function ruleFormula(condition: Condition): Formula {
  const needs = new Map<string, Literal>();
  const collect = (node: Condition): void => {
    const { field, value, operator } = node as FieldCondition;
    if (typeof field === 'string') {
      if (!FIELD_OPS[operator]) return;
      const literal: Literal = {
        kind: 'literal',
        field,
        op: 'applies',
        value: Array.isArray(value) ? value : [value],
        negated: false,
      };
      needs.set(JSON.stringify(literal), literal);
    } else if (Array.isArray(value)) (value as Condition[]).forEach(collect);
  };
  const formula = formulaOf(condition);
  collect(condition);
  // The conditions first: a witness then differs by a value before it differs by a missing field or a type.
  return and([formula, ...needs.values()]);
}

/** A placeholder within a longer string (`"team-${org.slug}"`) is text, not a variable: outside. */
function checkValue(value: unknown): void {
  if (typeof value === 'string' && value.includes(MARK) && !value.startsWith(MARK))
    throw new OutsideFragment('a placeholder inside a longer string');
  if (typeof value === 'string' && value.lastIndexOf(MARK) > 0)
    throw new OutsideFragment('a placeholder inside a longer string');
  if (Array.isArray(value)) value.forEach(checkValue);
  else if (value !== null && typeof value === 'object') Object.values(value).forEach(checkValue);
}

export function and(items: Formula[]): Formula {
  if (items.includes(false)) return false;
  const kept = items.filter((item) => item !== true);
  return kept.length === 0 ? true : kept.length === 1 ? kept[0]! : { kind: 'and', items: kept };
}

export function or(items: Formula[]): Formula {
  if (items.includes(true)) return true;
  const kept = items.filter((item) => item !== false);
  return kept.length === 0 ? false : kept.length === 1 ? kept[0]! : { kind: 'or', items: kept };
}

export function not(formula: Formula): Formula {
  if (typeof formula === 'boolean') return !formula;
  if (formula.kind === 'literal') return { ...formula, negated: !formula.negated };
  const items = formula.items.map(not);
  return formula.kind === 'and' ? or(items) : and(items);
}

/** What CASL needs of a rule here: its conditions as parsed, and whether it refuses. */
export interface RuleLike {
  inverted: boolean;
  conditions?: unknown;
  ast?: Condition | undefined;
}

/**
 * What the rules allow, highest priority first (as `ability.rulesFor` lists them): CASL lets the
 * first rule whose conditions match decide, so a grant counts where no refusal above it matches.
 */
export function allowedBy(rules: readonly RuleLike[]): Formula {
  const grants: Formula[] = [];
  let refusedAbove: Formula = false;
  for (const rule of rules) {
    const condition = conditionOf(rule);
    if (rule.inverted) refusedAbove = or([refusedAbove, condition]);
    else grants.push(and([condition, not(refusedAbove)]));
    if (refusedAbove === true) break;
  }
  return or(grants);
}

function conditionOf(rule: RuleLike): Formula {
  if (!rule.conditions) return true;
  if (!rule.ast) throw new OutsideFragment('its conditions are code');
  return ruleFormula(rule.ast);
}

const compiled = new Map<string, (object: object) => boolean>();

/**
 * Whether the literal holds for the object, decided by the package's own matcher (CASL's), the
 * literal's variables replaced by `values`.
 */
export function holds(literal: Literal, object: object, values: ReadonlyMap<string, unknown>): boolean {
  const value = substitute(literal.value, values);
  if (literal.op === 'applies') {
    return (
      appliesTo({ operator: 'in', field: literal.field, value } as unknown as Condition, object, step) !==
      literal.negated
    );
  }
  const query = { [literal.field]: { [`$${literal.op}`]: value } };
  const key = JSON.stringify(query);
  let test = compiled.get(key);
  if (!test) {
    test = conditionsMatcher(query as never) as (object: object) => boolean;
    if (compiled.size > 10_000) compiled.clear();
    compiled.set(key, test);
  }
  return test(object) !== literal.negated;
}

/** The value with each variable marker replaced by the variable's value. */
export function substitute(value: unknown, values: ReadonlyMap<string, unknown>): unknown {
  const name = variableName(value);
  if (name !== undefined) return values.get(name);
  return Array.isArray(value) ? value.map((item) => substitute(item, values)) : value;
}
