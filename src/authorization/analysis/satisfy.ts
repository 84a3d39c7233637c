/**
 * Is a formula (formula.ts) true for some subject and some placeholder values, and for which?
 * Exactly, by cases: the formula is expanded into conjunctions of literals one branch at a time
 * (a branch is dropped as soon as its literals contradict each other), and a conjunction is
 * decided path by path (subjects.ts, which also reads paths through to-many relations).
 *
 * Placeholders are variables shared by the whole formula, tried over the same kind of finite
 * set: the constants of their type in the formula and fresh values between them (two per gap, so
 * that two variables can fall either way of each other). `user.id` and `org.id` are positive
 * integers, `user.is_admin` a boolean, `user.email` and `org.slug` strings. A user attribute
 * compared with columns of one type (`typeOf`, from the application's metadata) is tried with
 * values of that type first, and given one when the subject found does not need it.
 */
import { OutsideFragment, variableName, type Formula, type Literal } from './formula.js';
import type { ColumnType } from '../column-types.js';
import { NO_TYPES, UNKNOWN_KINDS, type KindOf, type TypeOf } from './relations.js';
import { numericPivots, subjectFor, unique } from './subjects.js';

export interface Solution {
  /** The subject: a value for each path the deciding literals name (absent paths left out). */
  subject: Record<string, unknown>;
  /** The placeholders' values, by name (`user.id`). */
  values: Map<string, unknown>;
}

/** Expanding a formula is exponential at worst: past this many steps, the analysis gives up (not analysed). */
const MAX_STEPS = 200_000;

/** The package's own placeholders, whose types are known. */
const BUILT_IN = new Set(['user.id', 'user.email', 'user.is_admin', 'org.id', 'org.slug']);

/**
 * `kindOf`: which steps of the paths are to-many relations (relations.ts); by default, unknown.
 * `typeOf`: what the paths hold, where the application's metadata says; by default, anything.
 */
export function satisfy(
  formula: Formula,
  kindOf: KindOf = UNKNOWN_KINDS,
  typeOf: TypeOf = NO_TYPES,
): Solution | undefined {
  const constants: unknown[] = [];
  collectConstants(formula, constants);
  const typed = new Map<string, ColumnType>();
  for (const [name, types] of variableTypes(formula, typeOf))
    if (types.size === 1 && !BUILT_IN.has(name)) typed.set(name, [...types][0]!);
  const steps = { count: 0 };
  const domains = new Map<string, unknown[]>();
  const domainOf = (name: string) =>
    domains.get(name) ?? domains.set(name, variableDomain(name, constants, typed.get(name))).get(name)!;
  const search = (pending: Formula[], literals: Literal[]): Solution | undefined => {
    if (++steps.count > MAX_STEPS) throw new OutsideFragment('too many cases to decide');
    if (pending.length === 0) return solveConjunction(literals, domainOf, kindOf, typeOf);
    const [first, ...rest] = pending as [Formula, ...Formula[]];
    if (first === true) return search(rest, literals);
    if (first === false) return undefined;
    if (first.kind === 'literal') {
      const next = [...literals, first];
      return solveConjunction(next, domainOf, kindOf, typeOf) && search(rest, next);
    }
    if (first.kind === 'and') return search([...first.items, ...rest], literals);
    for (const item of first.items) {
      const found = search([item, ...rest], literals);
      if (found) return found;
    }
    return undefined;
  };
  const solution = search([formula], []);
  // The branch found holds whatever the other variables are: a typed attribute gets a value of its type.
  for (const name of typed.keys())
    if (solution && !solution.values.has(name)) solution.values.set(name, domainOf(name)[0]);
  return solution;
}

/** For each variable, the types of the columns the formula compares it with (a list's elements'). */
export function variableTypes(
  formula: Formula,
  typeOf: TypeOf,
  into = new Map<string, Set<ColumnType>>(),
): Map<string, Set<ColumnType>> {
  if (typeof formula === 'boolean') return into;
  if (formula.kind !== 'literal') {
    formula.items.forEach((item) => variableTypes(item, typeOf, into));
    return into;
  }
  const column = typeOf(formula.field)?.column;
  if (column === undefined) return into;
  for (const value of [formula.value].flat()) {
    const name = variableName(value);
    if (name !== undefined) into.set(name, (into.get(name) ?? new Set()).add(column));
  }
  return into;
}

function collectConstants(formula: Formula, into: unknown[]): void {
  if (typeof formula === 'boolean') return;
  if (formula.kind === 'literal') {
    for (const value of Array.isArray(formula.value) ? formula.value : [formula.value])
      if (variableName(value) === undefined) into.push(value);
    return;
  }
  for (const item of formula.items) collectConstants(item, into);
}

/** Values for each variable of the literals, tried in turn; then the paths. */
function solveConjunction(
  literals: Literal[],
  domainOf: (name: string) => unknown[],
  kindOf: KindOf,
  typeOf: TypeOf,
): Solution | undefined {
  const names = [
    ...new Set(
      literals
        .flatMap((literal) => (Array.isArray(literal.value) ? literal.value : [literal.value]))
        .map(variableName)
        .filter((name) => name !== undefined),
    ),
  ];
  const values = new Map<string, unknown>();
  const assign = (index: number): Record<string, unknown> | undefined => {
    if (index === names.length) return subjectFor(literals, values, kindOf, typeOf);
    for (const value of domainOf(names[index]!)) {
      values.set(names[index]!, value);
      const subject = assign(index + 1);
      if (subject) return subject;
    }
    values.delete(names[index]!);
    return undefined;
  };
  const subject = assign(0);
  return subject && { subject, values: new Map(values) };
}

/** The values a placeholder is tried with; `column`: the one type of the columns an attribute is compared with. */
function variableDomain(name: string, constants: unknown[], column?: ColumnType): unknown[] {
  if (name === 'user.is_admin') return [false, true];
  if (name === 'user.id' || name === 'org.id') return positiveIntegers(numericPivots(constants));
  const strings = constants.filter((value): value is string => typeof value === 'string');
  if (name === 'org.slug')
    return unique([...strings.filter((value) => /^[a-z0-9-]{2,48}$/.test(value)), 'acme', 'globex']);
  if (name === 'user.email')
    return unique([...strings.filter((value) => value.includes('@')), 'ann@example.com', 'bob@example.com']);
  // An attribute's value is a string, a number or a boolean: null is no value, which drops the rule rather than compare.
  const any = [...constants.filter((value) => value !== null && typeof value !== 'object'), 'value-1', 'value-2'];
  return unique([...(column ? valuesOfType(column, constants) : []), ...any]);
}

/** Values of a column's type for an attribute (a string, a number or a boolean): the constants of that type, and two in each gap. */
export function valuesOfType(column: ColumnType, constants: unknown[]): unknown[] {
  if (column === 'boolean') return [false, true];
  if (column === 'string') return [...constants.filter((value) => typeof value === 'string'), 'value-1', 'value-2'];
  if (column !== 'number') return [];
  const numbers = constants.filter((value): value is number => typeof value === 'number' && Number.isFinite(value));
  const pivots = [...new Set(numbers)].sort((a, b) => a - b);
  if (pivots.length === 0) return [1, 2];
  const between = pivots.slice(1).flatMap((high, index) => {
    const low = pivots[index]!;
    return [low + (high - low) / 3, low + ((high - low) * 2) / 3];
  });
  return [...pivots, pivots[0]! - 2, pivots[0]! - 1, ...between, pivots.at(-1)! + 1, pivots.at(-1)! + 2];
}

/** The integers among the pivots, and two in each gap around them, all at least 1. */
function positiveIntegers(pivots: number[]): number[] {
  const found: number[] = [];
  const bounds = [0, ...pivots.filter((pivot) => pivot >= 1), Number.POSITIVE_INFINITY];
  for (let index = 0; index + 1 < bounds.length; index++) {
    const [low, high] = [bounds[index]!, bounds[index + 1]!];
    if (Number.isInteger(low) && low >= 1) found.push(low);
    for (let value = Math.floor(low) + 1; value < high && value <= Math.floor(low) + 2; value++) found.push(value);
  }
  return unique(found) as number[];
}
