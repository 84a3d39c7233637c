/**
 * A subject meeting a conjunction of literals (satisfy.ts), the placeholders' values given; or
 * none. A literal tests one path, and CASL reads each path on its own, so the paths are
 * independent but for their shape: `a.b` has a value only when `a` is an object, or, through a
 * to-many relation, an array of objects. For one path, a test compares with finitely many
 * constants (by `===`, or by `<` between values of one type: matcher.ts compares strictly by
 * type), so the values between two constants all behave alike: trying each constant, a value in
 * each gap and each kind of value (absent, null, booleans, an object) decides the path exactly. A
 * rule's needs (`applies`: the path there, its values of the compared values' types) hold on every
 * element of a to-many step, as negated tests do. Every candidate is judged by the package's own matcher
 * (`holds`) on a subject holding it at its place, not by a copy of CASL's rules.
 *
 * Through a to-many step (an array), each literal of the fragment means "some element meets it"
 * (CASL flattens the path's values over the elements; `null` asks for an element without the
 * field), and a negated one "no element does". So the elements are independent: the array holds,
 * for each positive literal below the step, one element meeting it and every negated literal;
 * with no positive literal, it is empty. A step's kind comes from `kindOf` (relations.ts); an
 * unknown step is tried as an object first, then as an array.
 *
 * Where the application's metadata gives a path's type (`typeOf`, relations.ts), its value is one
 * an entity could hold: of the column's type, `null` only where the column is nullable, never
 * absent; a list field (an array column, or a to-many relation named as a whole) holds a list,
 * which the matcher reads as it reads a to-many step: one element per positive literal, each
 * meeting every negated one.
 */
import { valueType } from '../column-types.js';
import { holds, substitute, type Literal } from './formula.js';
import type { FieldType, KindOf, TypeOf } from './relations.js';

type Values = ReadonlyMap<string, unknown>;
/** The smallest subject holding `inner` at the place being solved. */
type Wrap = (inner: Record<string, unknown>) => object;

const ABSENT = Symbol('absent');
const OBJECT = Symbol('object');

export function subjectFor(
  literals: readonly Literal[],
  values: Values,
  kindOf: KindOf,
  typeOf: TypeOf,
): Record<string, unknown> | undefined {
  return objectAt(0, literals, { values, kindOf, typeOf }, (inner) => inner);
}

interface Context {
  values: Values;
  kindOf: KindOf;
  typeOf: TypeOf;
}

/** An object whose properties meet the literals (their paths `depth` segments in), or undefined. */
function objectAt(
  depth: number,
  literals: readonly Literal[],
  context: Context,
  wrap: Wrap,
): Record<string, unknown> | undefined {
  const bySegment = new Map<string, Literal[]>();
  for (const literal of literals) {
    const segment = literal.field.split('.')[depth]!;
    bySegment.set(segment, [...(bySegment.get(segment) ?? []), literal]);
  }
  const object: Record<string, unknown> = {};
  for (const [segment, group] of bySegment) {
    const found = propertyAt(depth + 1, segment, group, context, wrap);
    if (!found) return undefined;
    if (found.value !== ABSENT) object[segment] = found.value;
  }
  return object;
}

/** A value for the property (ABSENT for none) meeting the literals at it and below it. */
function propertyAt(
  depth: number,
  name: string,
  literals: Literal[],
  context: Context,
  wrap: Wrap,
): { value: unknown } | undefined {
  const own = literals.filter((literal) => literal.field.split('.').length === depth);
  const below = literals.filter((literal) => literal.field.split('.').length > depth);
  const here = (value: unknown) => wrap(value === ABSENT ? {} : { [name]: value });
  const meets = (list: Literal[], subject: object) => list.every((literal) => holds(literal, subject, context.values));
  if (below.length === 0) {
    const type = context.typeOf(own[0]!.field);
    if (type?.list) return listAt(own, type, context, here);
    for (const candidate of candidates(own, context.values, type)) {
      const value = candidate === OBJECT ? {} : candidate;
      if (meets(own, here(value))) return { value };
    }
    return undefined;
  }
  const path = literals[0]!.field.split('.').slice(0, depth).join('.');
  const kind = context.kindOf(path);
  if (kind !== 'many') {
    // A known relation to one entity is an entity or null; an unknown step may hold anything.
    for (const candidate of kind === 'one'
      ? [OBJECT, null]
      : own.length
        ? candidates(own, context.values)
        : [OBJECT, null]) {
      if (candidate === OBJECT) {
        if (!meets(own, here({}))) continue;
        const object = objectAt(depth, below, context, (inner) => wrap({ [name]: inner }));
        if (object) return { value: object };
      } else if (meets(own, here(candidate)) && meets(below, here(candidate))) {
        // Not an object: every path below reads nothing.
        return { value: candidate };
      }
    }
  }
  if (kind === 'one') return undefined;
  const elements = elementsAt(depth, name, below, context, wrap);
  if (!elements || meets(own, here(elements.length ? [{}] : []))) return elements && { value: elements };
  // A test of the array itself sees only whether it has elements (objects, all alike to it).
  if (elements.length || !meets(own, here([{}]))) return undefined;
  const element = objectAt(depth, below.filter(universal), context, (inner) => wrap({ [name]: [inner] }));
  return element && { value: [element] };
}

/** An array of objects meeting the literals below a to-many step: one element per positive literal. */
function elementsAt(
  depth: number,
  name: string,
  below: Literal[],
  context: Context,
  wrap: Wrap,
): Record<string, unknown>[] | undefined {
  const negated = below.filter(universal);
  const positive = [
    ...new Map(
      below.filter((literal) => !universal(literal)).map((literal) => [JSON.stringify(literal), literal]),
    ).values(),
  ];
  if (positive.length === 0)
    return below.every((literal) => holds(literal, wrap({ [name]: [] }), context.values)) ? [] : undefined;
  const elements: Record<string, unknown>[] = [];
  for (const literal of positive) {
    const element = objectAt(depth, [literal, ...negated], context, (inner) => wrap({ [name]: [inner] }));
    if (!element) return undefined;
    if (!elements.some((other) => JSON.stringify(other) === JSON.stringify(element))) elements.push(element);
  }
  return elements;
}

/** A list meeting the literals on a list field: one element per positive literal, each meeting every universal one. */
function listAt(
  own: Literal[],
  type: FieldType,
  context: Context,
  here: (value: unknown) => object,
): { value: unknown[] } | undefined {
  const every = own.filter(universal);
  const element: FieldType = { column: type.column, list: false, nullable: false };
  const list: unknown[] = [];
  for (const literal of own.filter((item) => !universal(item))) {
    const meetsAll = (value: unknown) =>
      [literal, ...every].every((test) => holds(test, here([value]), context.values));
    const found = candidates(own, context.values, element).find(meetsAll);
    if (found === undefined) return undefined;
    if (!list.includes(found)) list.push(found);
  }
  return own.every((literal) => holds(literal, here(list), context.values)) ? { value: list } : undefined;
}

/**
 * A literal every element of a to-many step must meet: a negated test ("no element does"), or a
 * rule's need (`applies`: the path is there on every element); the others ask for one element.
 */
function universal(literal: Literal): boolean {
  return literal.negated !== (literal.op === 'applies');
}

/** Values that, between them, behave as every value can toward the literals' constants; of the field's type when it is known. */
function candidates(literals: Literal[], values: Values, type?: FieldType): unknown[] {
  const all = anyCandidates(literals, values);
  // A path of unknown type may hold a list, which the matcher reads element by element: the empty
  // one meets every negated test and every need (no element has another type), and no positive one.
  if (!type) return [...all, []];
  const fits = (value: unknown) => {
    if (value === null) return type.nullable;
    if (type.integer && typeof value === 'number' && !Number.isInteger(value)) return false;
    return type.column === undefined ? valueType(value) !== undefined : valueType(value) === type.column;
  };
  const more = type.column === 'date' ? dates(all) : type.integer ? integers(all) : [];
  return unique([...all, ...more]).filter(fits);
}

/** Integers that, between them, fall in every gap between the numbers compared with that holds one. */
function integers(constants: unknown[]): number[] {
  return numericPivots(constants).flatMap((pivot) => [
    Math.floor(pivot),
    Math.ceil(pivot),
    Math.floor(pivot) - 1,
    Math.ceil(pivot) + 1,
  ]);
}

/** Dates: those compared with, a millisecond either way of each and one between two; or one. */
function dates(constants: unknown[]): Date[] {
  const given = constants.filter((value): value is Date => value instanceof Date).map((date) => date.getTime());
  const times = [...new Set(given)].sort((a, b) => a - b);
  const between = (index: number) =>
    index + 1 < times.length ? [Math.floor((times[index]! + times[index + 1]!) / 2)] : [];
  const around = times.flatMap((time, index) => [time - 1, time + 1, ...between(index)]);
  return (times.length ? around : [Date.UTC(2026, 0, 1)]).map((time) => new Date(time));
}

function anyCandidates(literals: Literal[], values: Values): unknown[] {
  const constants = literals.flatMap((literal) => {
    const value = substitute(literal.value, values);
    return Array.isArray(value) ? value : [value];
  });
  const pivots = numericPivots(constants);
  const numbers = pivots.flatMap((pivot, index) => [
    pivot + 1,
    index + 1 < pivots.length ? (pivot + pivots[index + 1]!) / 2 : pivot + 1,
    pivot - 1,
  ]);
  const strings = constants.filter((value): value is string => typeof value === 'string');
  const fresh = ['other', ...strings.map((value) => `${value}\u0000`), '', '\u0000', ...pivots.map(String)];
  // The constants first, then the most legible values: a witness is read by people.
  const booleans = constants.some((value) => typeof value === 'boolean') ? [false, true] : [];
  const ordered = constants.some((value) => typeof value === 'number' || typeof value === 'string');
  const empty = ordered ? [] : [null, ABSENT];
  return unique([...constants, ...booleans, ...empty, ...numbers, 0, ...fresh, true, false, null, ABSENT, OBJECT]);
}

/** The numbers the constants compare as (`<` converts null, booleans and numeric strings), sorted. */
export function numericPivots(constants: unknown[]): number[] {
  const numbers = constants
    .filter((value) => value === null || ['number', 'boolean', 'string'].includes(typeof value))
    .map((value) => (typeof value === 'string' && value.trim() === '' ? Number.NaN : Number(value)))
    .filter(Number.isFinite);
  return [...new Set(numbers)].sort((a, b) => a - b);
}

export function unique(values: unknown[]): unknown[] {
  const seen = new Set<unknown>();
  return values.filter(
    (value) => !(typeof value === 'number' && !Number.isFinite(value)) && !seen.has(value) && seen.add(value),
  );
}
