/**
 * Rules partitioned by a column every one of them fixes (docs/authorization.md, "How big the
 * filter grows"). Organization roles are the common case: each of a role's rules says
 * `org_id = <its organization>`, so a user with roles in ten organizations has ten copies of the
 * same rules, each bound to another `org_id`. Nested by priority as they stand (priority-query.ts),
 * each organization's refusals bound the grants of every organization below them, and the filter
 * says each rule ten times; MikroORM's cost of turning a filter into SQL grows with its nodes and
 * its subqueries (one per to-many path), so ten copies cost ten times as much in every `em.find`.
 *
 * When every conditional rule says `field = value` at its top (one value each, of the column's
 * type), a row with `field = v` is decided by the rules that say `v` alone: a rule saying another
 * value neither grants nor takes it away (SQL compares values of one type with the column's as
 * the matcher does, strictly). So the query is
 * `(field = v1 AND rules of v1 without that test) OR (field = v2 AND …) OR …`, and the rows with
 * none of those values get what the unconditional rule below them says (or nothing). Values whose
 * rules come out the same are one `field IN (…)`: ten organizations' copies of one role's rules
 * are one query.
 */
import type { EntityMetadata } from '@mikro-orm/core';
import { CompoundCondition, FieldCondition, type Condition } from '@ucast/mongo2js';
import { columnType, fitsColumn } from './column-types.js';
import { conditionToQuery } from './condition-query.js';
import type { RankedRule } from './priority-query.js';
import { and, or, type Query } from './relation-filters.js';
import { isScalar } from './relation-walks.js';

/** What partitioning needs of a CASL rule: its priority and kind, and its conditions' AST. */
export interface PartitionRule extends RankedRule {
  ast?: Condition;
}

type Value = string | number | boolean;

/** The columns whose values are equal in SQL exactly when they are equal in JavaScript (with a value of their type). */
const STRICT = new Set(['number', 'string', 'boolean']);

/** A rule's conditions at its top: the children of its `$and`, or the condition itself. */
const tops = (ast: Condition): Condition[] =>
  ast instanceof CompoundCondition && ast.operator === 'and' ? (ast.value as Condition[]) : [ast];

/**
 * The first top-level `field = value` test of a condition, by field. Other tests of the same field
 * (`$and: [{ org_id: null }]`, flattened to the top) stay in the rule: only this one is taken out.
 */
function equalities(ast: Condition): Map<string, FieldCondition<Value>> {
  const found = new Map<string, FieldCondition<Value>>();
  for (const node of tops(ast)) {
    if (!(node instanceof FieldCondition) || typeof node.field !== 'string' || node.operator !== 'eq') continue;
    const value = node.value;
    // NaN and the infinities have no SQL form: such a rule is refused where it is translated.
    const primitive = typeof value === 'string' || Number.isFinite(value) || typeof value === 'boolean';
    if (primitive && !found.has(node.field)) found.set(node.field, node as FieldCondition<Value>);
  }
  return found;
}

/**
 * What a partition's rules say, as a string equal for rules that translate alike; undefined for
 * values JSON would confuse or refuse (a bigint, a Date, a RegExp, NaN: the partition stands alone).
 */
function signature(value: unknown): string | undefined {
  const primitive = value === null || typeof value === 'string' || typeof value === 'boolean' || Number.isFinite(value);
  if (primitive) return JSON.stringify(value);
  let parts: (string | undefined)[];
  if (Array.isArray(value)) parts = value.map(signature);
  else if (value instanceof FieldCondition) parts = [value.operator, value.field, signature(value.value)];
  else if (value instanceof CompoundCondition) parts = [value.operator, signature(value.value)];
  else return undefined;
  return parts.includes(undefined) ? undefined : JSON.stringify(parts);
}

/** The condition without its top-level test `test`; undefined: nothing is left (unconditional there). */
function without(ast: Condition, test: Condition): Condition | undefined {
  const rest = tops(ast).filter((node) => node !== test);
  return rest.length === 0 ? undefined : rest.length === 1 ? rest[0] : new CompoundCondition('and', rest);
}

/**
 * The column every conditional rule fixes, with the most distinct values (at least two): a scalar
 * column of the entity of a type SQL compares strictly, every rule's value of that type.
 */
function partitionField(rules: readonly PartitionRule[], meta: EntityMetadata): string | undefined {
  const tests = rules.map((rule) => (rule.ast ? equalities(rule.ast) : new Map<string, FieldCondition<Value>>()));
  let best: { field: string; count: number } | undefined;
  for (const field of tests[0]?.keys() ?? []) {
    if (field.includes('.') || !isScalar(meta, field)) continue;
    const type = columnType(meta.properties[field as keyof typeof meta.properties]);
    if (type === undefined || !STRICT.has(type)) continue;
    const values = tests.map((test) => test.get(field)?.value);
    if (values.some((value) => value === undefined || !fitsColumn(value, type))) continue;
    const count = new Set(values).size;
    if (count >= 2 && count > (best?.count ?? 0)) best = { field, count };
  }
  return best?.field;
}

/**
 * The query of `rules` (highest priority first) partitioned by the column they all fix, with
 * `nest` (byPriority with the rules' translation) run on each partition's rules; undefined when no
 * column is fixed by every conditional rule above the first unconditional one (then nest them as
 * they are).
 */
export function byPartition<R extends PartitionRule>(
  rules: readonly R[],
  meta: EntityMetadata | undefined,
  nest: (rules: readonly R[]) => Query,
): Query | undefined {
  const cut = rules.findIndex((rule) => !rule.conditions);
  const ranked = cut === -1 ? rules : rules.slice(0, cut);
  const field = meta && ranked.length >= 2 ? partitionField(ranked, meta) : undefined;
  if (!meta || field === undefined) return undefined;
  // The unconditional rule decides the rows no partition takes (and each partition's rest); the
  // rules below it decide nothing but are translated all the same, so that one with no SQL form is refused.
  const floor = cut === -1 ? [] : [rules[cut]!];
  const fallback = cut === -1 ? false : nest(rules.slice(cut));
  const partitions = new Map<Value, R[]>();
  for (const rule of ranked) {
    const test = equalities(rule.ast!).get(field)!;
    const value = test.value;
    const ast = without(rule.ast!, test);
    // A plain copy of the CASL rule (its own fields: origin, inverted …) with the rest of its conditions.
    const stripped = { ...rule, conditions: ast && rule.conditions, ast } as R;
    partitions.set(value, [...(partitions.get(value) ?? []), stripped]);
  }
  // Values whose rules are the same but for that test (a role's copies in its organizations) are
  // translated once, and their rows are one `field IN (…)`.
  const alike = new Map<string, { values: Value[]; rules: R[] }>();
  for (const [value, own] of partitions) {
    const key = signature(own.map((rule) => [rule.inverted, rule.ast ?? null])) ?? `unlike ${alike.size}`;
    const same = alike.get(key);
    if (same) same.values.push(value);
    else alike.set(key, { values: [value], rules: own });
  }
  const among = (values: Value[], negate: boolean): Query => {
    const [only] = values;
    const test = values.length === 1 ? new FieldCondition('eq', field, only) : new FieldCondition('in', field, values);
    return conditionToQuery(test, negate, meta);
  };
  const parts = [...alike.values()].map(({ values, rules }) => and([among(values, false), nest([...rules, ...floor])]));
  return or([...parts, fallback === true && among([...partitions.keys()], true)]);
}
