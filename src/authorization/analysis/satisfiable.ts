/**
 * Whether some subject could meet a single rule's conditions, for `auth policy lint`: a small
 * check of each field's equalities, lists and bounds (`$eq $ne $in $nin $lt $lte $gt $gte`, within
 * `$and` and `$or`), each field holding one value. It answers "unsatisfiable" only when no value
 * can meet a field's conditions, testing candidate values with the ability's own matcher; anything
 * it does not read (other operators, placeholders, object values) counts as satisfiable.
 */
import { conditionsMatcher } from '../conditions.js';

type Conditions = Record<string, unknown>;
interface Constraint {
  field: string;
  operator: string;
  value: unknown;
}
interface Flat {
  constraints: Constraint[];
  /** `$or` groups: one of each group's branches must hold. */
  ors: Conditions[][];
}

const READ = new Set(['$eq', '$ne', '$in', '$nin', '$lt', '$lte', '$gt', '$gte']);
const BOUNDS = { $gt: 'lower', $gte: 'lower', $lt: 'upper', $lte: 'upper' } as const;

/** True when no subject (each field holding one value) meets the conditions. */
export function unsatisfiable(conditions: Conditions | undefined): boolean {
  if (!conditions) return false;
  const { constraints, ors } = flatten([conditions]);
  return unsatisfiableFlat(constraints, ors);
}

function unsatisfiableFlat(constraints: Constraint[], ors: Conditions[][]): boolean {
  const byField = new Map<string, Constraint[]>();
  for (const constraint of constraints) byField.set(constraint.field, [...(byField.get(constraint.field) ?? []), constraint]);
  if ([...byField.values()].some(fieldUnsatisfiable)) return true;
  const [first, ...rest] = ors;
  if (!first) return false;
  // Unsatisfiable when each branch, with everything else, is.
  return first.every((branch) => {
    const inner = flatten([branch]);
    return unsatisfiableFlat([...constraints, ...inner.constraints], [...rest, ...inner.ors]);
  });
}

function flatten(parts: Conditions[]): Flat {
  const flat: Flat = { constraints: [], ors: [] };
  for (const part of parts) {
    if (part === null || typeof part !== 'object') continue;
    for (const [key, value] of Object.entries(part)) {
      if (key === '$and' && Array.isArray(value)) {
        const inner = flatten(value as Conditions[]);
        flat.constraints.push(...inner.constraints);
        flat.ors.push(...inner.ors);
      } else if (key === '$or' && Array.isArray(value) && value.length > 0) {
        flat.ors.push(value as Conditions[]);
      } else if (!key.startsWith('$')) {
        for (const [operator, operand] of operatorsOf(value)) {
          if (READ.has(operator) && readable(operator, operand)) flat.constraints.push({ field: key, operator, value: operand });
        }
      }
    }
  }
  return flat;
}

function fieldUnsatisfiable(constraints: Constraint[]): boolean {
  const meets = (candidate: unknown) => constraints.every(({ operator, value }) => conditionsMatcher({ v: { [operator]: value } } as never)({ v: candidate }));
  // Equalities and lists leave a finite set of candidates: try each.
  let candidates: unknown[] | undefined;
  for (const { operator, value } of constraints) {
    if (operator === '$eq') candidates = (candidates ?? [value]).filter((candidate) => candidate === value);
    if (operator === '$in') candidates = (candidates ?? (value as unknown[])).filter((candidate) => (value as unknown[]).includes(candidate));
  }
  if (candidates) return !candidates.some(meets);
  // Otherwise bounds: numbers, or strings compared as such.
  const bounds = constraints.filter(({ operator }) => operator in BOUNDS);
  const types = new Set(bounds.map(({ value }) => typeof value));
  if (bounds.length === 0 || types.size !== 1 || !(types.has('number') || types.has('string'))) return false;
  const lower = tightest(bounds.filter(({ operator }) => BOUNDS[operator as keyof typeof BOUNDS] === 'lower'), 'lower');
  const upper = tightest(bounds.filter(({ operator }) => BOUNDS[operator as keyof typeof BOUNDS] === 'upper'), 'upper');
  if (!lower || !upper) return false;
  if ((lower.value as number) > (upper.value as number)) return true;
  if (lower.value !== upper.value) return false;
  // One value left, if both bounds include it.
  return lower.strict || upper.strict || !meets(lower.value);
}

/** The tightest bound of one side, and whether it excludes its value. */
function tightest(bounds: Constraint[], side: 'lower' | 'upper'): { value: unknown; strict: boolean } | undefined {
  let best: { value: unknown; strict: boolean } | undefined;
  for (const { operator, value } of bounds) {
    const strict = operator === '$gt' || operator === '$lt';
    const tighter = !best || (side === 'lower' ? (value as number) > (best.value as number) : (value as number) < (best.value as number)) || (value === best.value && strict);
    if (tighter) best = { value, strict };
  }
  return best;
}

/** Values this check reads: plain values without placeholders (lists of them for `$in` and `$nin`). */
function readable(operator: string, operand: unknown): boolean {
  const plain = (value: unknown) => value === null || ['number', 'string', 'boolean'].includes(typeof value) && !(typeof value === 'string' && /\$\{(user|org)\./.test(value));
  return operator === '$in' || operator === '$nin' ? Array.isArray(operand) && operand.every(plain) : plain(operand);
}

/** `{ $gt: 1, $lt: 5 }` as its operators; a plain value as `$eq`. */
function operatorsOf(value: unknown): [string, unknown][] {
  const isOperators = value !== null && typeof value === 'object' && !Array.isArray(value) && Object.keys(value).length > 0 && Object.keys(value).every((key) => key.startsWith('$'));
  return isOperators ? Object.entries(value) : [['$eq', value]];
}
