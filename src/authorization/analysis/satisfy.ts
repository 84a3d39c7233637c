/**
 * Is a formula (formula.ts) true for some subject and some placeholder values, and for which?
 * Exactly, by cases: the formula is expanded into conjunctions of literals one branch at a time
 * (a branch is dropped as soon as its literals contradict each other), and a conjunction is
 * decided path by path (subjects.ts, which also reads paths through to-many relations).
 *
 * Placeholders are variables shared by the whole formula, tried over the same kind of finite
 * set: the constants of their type in the formula and fresh values between them (two per gap, so
 * that two variables can fall either way of each other). `user.id` and `org.id` are positive
 * integers, `user.is_admin` a boolean, `user.email` and `org.slug` strings.
 */
import { OutsideFragment, variableName, type Formula, type Literal } from './formula.js';
import { UNKNOWN_KINDS, type KindOf } from './relations.js';
import { numericPivots, subjectFor, unique } from './subjects.js';

export interface Solution {
  /** The subject: a value for each path the deciding literals name (absent paths left out). */
  subject: Record<string, unknown>;
  /** The placeholders' values, by name (`user.id`). */
  values: Map<string, unknown>;
}

/** Expanding a formula is exponential at worst: past this many steps, the analysis gives up (not analysed). */
const MAX_STEPS = 200_000;

/** `kindOf`: which steps of the paths are to-many relations (relations.ts); by default, unknown. */
export function satisfy(formula: Formula, kindOf: KindOf = UNKNOWN_KINDS): Solution | undefined {
  const constants: unknown[] = [];
  collectConstants(formula, constants);
  const steps = { count: 0 };
  const domains = new Map<string, unknown[]>();
  const domainOf = (name: string) => domains.get(name) ?? domains.set(name, variableDomain(name, constants)).get(name)!;
  const search = (pending: Formula[], literals: Literal[]): Solution | undefined => {
    if (++steps.count > MAX_STEPS) throw new OutsideFragment('too many cases to decide');
    if (pending.length === 0) return solveConjunction(literals, domainOf, kindOf);
    const [first, ...rest] = pending as [Formula, ...Formula[]];
    if (first === true) return search(rest, literals);
    if (first === false) return undefined;
    if (first.kind === 'literal') {
      const next = [...literals, first];
      return solveConjunction(next, domainOf, kindOf) && search(rest, next);
    }
    if (first.kind === 'and') return search([...first.items, ...rest], literals);
    for (const item of first.items) {
      const found = search([item, ...rest], literals);
      if (found) return found;
    }
    return undefined;
  };
  return search([formula], []);
}

function collectConstants(formula: Formula, into: unknown[]): void {
  if (typeof formula === 'boolean') return;
  if (formula.kind === 'literal') {
    for (const value of Array.isArray(formula.value) ? formula.value : [formula.value]) if (variableName(value) === undefined) into.push(value);
    return;
  }
  for (const item of formula.items) collectConstants(item, into);
}

/** Values for each variable of the literals, tried in turn; then the paths. */
function solveConjunction(literals: Literal[], domainOf: (name: string) => unknown[], kindOf: KindOf): Solution | undefined {
  const names = [...new Set(literals.flatMap((literal) => (Array.isArray(literal.value) ? literal.value : [literal.value])).map(variableName).filter((name) => name !== undefined))];
  const values = new Map<string, unknown>();
  const assign = (index: number): Record<string, unknown> | undefined => {
    if (index === names.length) return subjectFor(literals, values, kindOf);
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

/** The values a placeholder is tried with. */
function variableDomain(name: string, constants: unknown[]): unknown[] {
  if (name === 'user.is_admin') return [false, true];
  if (name === 'user.id' || name === 'org.id') return positiveIntegers(numericPivots(constants));
  const strings = constants.filter((value): value is string => typeof value === 'string');
  if (name === 'org.slug') return unique([...strings.filter((value) => /^[a-z0-9-]{2,48}$/.test(value)), 'acme', 'globex']);
  if (name === 'user.email') return unique([...strings.filter((value) => value.includes('@')), 'ann@example.com', 'bob@example.com']);
  // An attribute's value is a string, a number or a boolean: null is no value, which drops the rule rather than compare.
  return unique([...constants.filter((value) => value !== null && typeof value !== 'object'), 'value-1', 'value-2']);
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
