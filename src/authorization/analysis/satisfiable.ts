/**
 * Whether some subject could meet a single rule's conditions, for `auth policy lint`. Conditions
 * within the diff's fragment (`$eq $ne $in $nin $lt $lte $gt $gte`, `$and $or $nor $not`, dotted
 * paths, placeholders as whole values) are decided exactly by the diff's solver (satisfy.ts), with
 * placeholders free and paths through to-many relations read as CASL reads them: two conditions on
 * such a path may be met by two elements. Other conditions get a small check of each field's
 * equalities, lists and bounds, each field holding one value: it answers "unsatisfiable" only when
 * no value can meet a field's conditions, testing candidate values with the ability's own matcher;
 * anything it does not read (other operators, placeholders, object values, a path that may be
 * to-many) counts as satisfiable.
 */
import { conditionsMatcher } from '../conditions.js';
import { OutsideFragment, ruleFormula, variable } from './formula.js';
import { UNKNOWN_KINDS, type KindOf } from './relations.js';
import { satisfy } from './satisfy.js';

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

/** True when no subject meets the conditions; `kindOf` says which steps of dotted paths are to-many (unknown: both readings). */
export function unsatisfiable(conditions: Conditions | undefined, kindOf: KindOf = UNKNOWN_KINDS): boolean {
  if (!conditions) return false;
  try {
    const { ast } = conditionsMatcher(withVariables(conditions) as never) as unknown as {
      ast: Parameters<typeof ruleFormula>[0];
    };
    return satisfy(ruleFormula(ast), kindOf) === undefined;
  } catch (error) {
    if (!(error instanceof OutsideFragment)) throw error;
  }
  const read = (field: string) => onePerField(field, kindOf);
  const { constraints, ors } = flatten([conditions], read);
  return unsatisfiableFlat(constraints, ors, read);
}

/** Placeholders as the solver's variables; one inside a longer string is outside its fragment. */
function withVariables(value: unknown): unknown {
  if (typeof value === 'string') {
    const whole = /^\$\{((?:user|org)\.[A-Za-z_][\w]*)\}$/.exec(value);
    if (whole) return variable(whole[1]!);
    if (value.includes('${')) throw new OutsideFragment('a placeholder inside a longer string');
    return value;
  }
  if (Array.isArray(value)) return value.map(withVariables);
  if (value !== null && typeof value === 'object')
    return Object.fromEntries(Object.entries(value).map(([key, item]) => [key, withVariables(item)]));
  return value;
}

/** Whether a field holds one value: a plain field, or a path whose every step is known to be to-one. */
function onePerField(field: string, kindOf: KindOf): boolean {
  const segments = field.split('.');
  return segments.slice(0, -1).every((_segment, index) => kindOf(segments.slice(0, index + 1).join('.')) === 'one');
}

function unsatisfiableFlat(
  constraints: Constraint[],
  ors: Conditions[][],
  read: (field: string) => boolean = () => true,
): boolean {
  const byField = new Map<string, Constraint[]>();
  for (const constraint of constraints)
    byField.set(constraint.field, [...(byField.get(constraint.field) ?? []), constraint]);
  if ([...byField.values()].some(fieldUnsatisfiable)) return true;
  const [first, ...rest] = ors;
  if (!first) return false;
  // Unsatisfiable when each branch, with everything else, is.
  return first.every((branch) => {
    const inner = flatten([branch], read);
    return unsatisfiableFlat([...constraints, ...inner.constraints], [...rest, ...inner.ors], read);
  });
}

function flatten(parts: Conditions[], read: (field: string) => boolean): Flat {
  const flat: Flat = { constraints: [], ors: [] };
  for (const part of parts) {
    if (part === null || typeof part !== 'object') continue;
    for (const [key, value] of Object.entries(part)) {
      if (key === '$and' && Array.isArray(value)) {
        const inner = flatten(value as Conditions[], read);
        flat.constraints.push(...inner.constraints);
        flat.ors.push(...inner.ors);
      } else if (key === '$or' && Array.isArray(value) && value.length > 0) {
        flat.ors.push(value as Conditions[]);
      } else if (!key.startsWith('$') && read(key)) {
        for (const [operator, operand] of operatorsOf(value)) {
          if (READ.has(operator) && readable(operator, operand))
            flat.constraints.push({ field: key, operator, value: operand });
        }
      }
    }
  }
  return flat;
}

function fieldUnsatisfiable(constraints: Constraint[]): boolean {
  const meets = (candidate: unknown) =>
    constraints.every(({ operator, value }) =>
      conditionsMatcher({ v: { [operator]: value } } as never)({ v: candidate }),
    );
  // Equalities and lists leave a finite set of candidates: try each.
  let candidates: unknown[] | undefined;
  for (const { operator, value } of constraints) {
    if (operator === '$eq') candidates = (candidates ?? [value]).filter((candidate) => candidate === value);
    if (operator === '$in')
      candidates = (candidates ?? (value as unknown[])).filter((candidate) => (value as unknown[]).includes(candidate));
  }
  if (candidates) return !candidates.some(meets);
  // Otherwise bounds: numbers, or strings compared as such.
  const bounds = constraints.filter(({ operator }) => operator in BOUNDS);
  const types = new Set(bounds.map(({ value }) => typeof value));
  if (bounds.length === 0 || types.size !== 1 || !(types.has('number') || types.has('string'))) return false;
  const lower = tightest(
    bounds.filter(({ operator }) => BOUNDS[operator as keyof typeof BOUNDS] === 'lower'),
    'lower',
  );
  const upper = tightest(
    bounds.filter(({ operator }) => BOUNDS[operator as keyof typeof BOUNDS] === 'upper'),
    'upper',
  );
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
    const tighter =
      !best ||
      (side === 'lower' ? (value as number) > (best.value as number) : (value as number) < (best.value as number)) ||
      (value === best.value && strict);
    if (tighter) best = { value, strict };
  }
  return best;
}

/** Values this check reads: plain values without placeholders (lists of them for `$in` and `$nin`). */
function readable(operator: string, operand: unknown): boolean {
  const plain = (value: unknown) =>
    value === null ||
    (['number', 'string', 'boolean'].includes(typeof value) &&
      !(typeof value === 'string' && /\$\{(user|org)\./.test(value)));
  return operator === '$in' || operator === '$nin' ? Array.isArray(operand) && operand.every(plain) : plain(operand);
}

/** `{ $gt: 1, $lt: 5 }` as its operators; a plain value as `$eq`. */
function operatorsOf(value: unknown): [string, unknown][] {
  const isOperators =
    value !== null &&
    typeof value === 'object' &&
    !Array.isArray(value) &&
    Object.keys(value).length > 0 &&
    Object.keys(value).every((key) => key.startsWith('$'));
  return isOperators ? Object.entries(value) : [['$eq', value]];
}
