/**
 * Is a formula (formula.ts) true for some subject and some placeholder values, and for which?
 * Exactly, by cases: the formula is expanded into conjunctions of literals one branch at a time
 * (a branch is dropped as soon as its literals contradict each other), and a conjunction is
 * decided field by field.
 *
 * A literal tests one path, and CASL reads each path on its own, so the paths of a conjunction
 * are independent but for their shape: `a.b` has a value only when `a` is an object. For one
 * path, a test compares with finitely many constants (by `===`, or by JavaScript's `<`, which
 * orders numbers, strings by code unit, and converts `null`, booleans and numeric strings), so
 * the values between two constants all behave alike: trying each constant, a value in each gap
 * and each kind of value (absent, null, booleans, an object) decides the path exactly. Every
 * candidate is judged by the package's own matcher (`holds`), not by a copy of its rules.
 *
 * Placeholders are variables shared by the whole formula, tried over the same kind of finite
 * set: the constants of their type in the formula and fresh values between them (two per gap, so
 * that two variables can fall either way of each other). `user.id` and `org.id` are positive
 * integers, `user.is_admin` a boolean, `user.email` and `org.slug` strings.
 */
import { holds, OutsideFragment, substitute, variableName, type Formula, type Literal } from './formula.js';

export interface Solution {
  /** The subject: a value for each path the deciding literals name (absent paths left out). */
  subject: Record<string, unknown>;
  /** The placeholders' values, by name (`user.id`). */
  values: Map<string, unknown>;
}

/** Expanding a formula is exponential at worst: past this many steps, the analysis gives up (not analysed). */
const MAX_STEPS = 200_000;

export function satisfy(formula: Formula): Solution | undefined {
  const constants: unknown[] = [];
  collectConstants(formula, constants);
  const steps = { count: 0 };
  const domains = new Map<string, unknown[]>();
  const domainOf = (name: string) => domains.get(name) ?? domains.set(name, variableDomain(name, constants)).get(name)!;
  const search = (pending: Formula[], literals: Literal[]): Solution | undefined => {
    if (++steps.count > MAX_STEPS) throw new OutsideFragment('too many cases to decide');
    if (pending.length === 0) return solveConjunction(literals, domainOf);
    const [first, ...rest] = pending as [Formula, ...Formula[]];
    if (first === true) return search(rest, literals);
    if (first === false) return undefined;
    if (first.kind === 'literal') {
      const next = [...literals, first];
      return solveConjunction(next, domainOf) && search(rest, next);
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
function solveConjunction(literals: Literal[], domainOf: (name: string) => unknown[]): Solution | undefined {
  const names = [...new Set(literals.flatMap((literal) => (Array.isArray(literal.value) ? literal.value : [literal.value])).map(variableName).filter((name) => name !== undefined))];
  const values = new Map<string, unknown>();
  const assign = (index: number): Record<string, unknown> | undefined => {
    if (index === names.length) return solvePaths(literals, values);
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

interface PathNode {
  segments: string[];
  literals: Literal[];
  children: Map<string, PathNode>;
}

const ABSENT = Symbol('absent');
const OBJECT = Symbol('object');

function solvePaths(literals: Literal[], values: ReadonlyMap<string, unknown>): Record<string, unknown> | undefined {
  const root: PathNode = { segments: [], literals: [], children: new Map() };
  for (const literal of literals) {
    let node = root;
    for (const segment of literal.field.split('.')) {
      let child = node.children.get(segment);
      if (!child) node.children.set(segment, (child = { segments: [...node.segments, segment], literals: [], children: new Map() }));
      node = child;
    }
    node.literals.push(literal);
  }
  return objectOf(root, values);
}

/** An object whose children satisfy their literals, or undefined. */
function objectOf(node: PathNode, values: ReadonlyMap<string, unknown>): Record<string, unknown> | undefined {
  const object: Record<string, unknown> = {};
  for (const [name, child] of node.children) {
    const value = valueOf(child, values);
    if (value === undefined) return undefined;
    if (value.found !== ABSENT) object[name] = value.found;
  }
  return object;
}

/** A value for the path (ABSENT for none) meeting its literals and its descendants', or undefined. */
function valueOf(node: PathNode, values: ReadonlyMap<string, unknown>): { found: unknown } | undefined {
  for (const candidate of candidates(node.literals, values)) {
    if (candidate === OBJECT) {
      if (!node.literals.every((literal) => holds(literal, at(node.segments, {}), values))) continue;
      const object = objectOf(node, values);
      if (object) return { found: object };
      continue;
    }
    if (!node.literals.every((literal) => holds(literal, at(node.segments, candidate), values))) continue;
    // Not an object: every path below reads nothing, as when the parent is missing.
    if (allHoldBelowNothing(node, values)) return { found: candidate };
  }
  return undefined;
}

function allHoldBelowNothing(node: PathNode, values: ReadonlyMap<string, unknown>): boolean {
  for (const child of node.children.values()) {
    if (!child.literals.every((literal) => holds(literal, {}, values))) return false;
    if (!allHoldBelowNothing(child, values)) return false;
  }
  return true;
}

/** The smallest subject with `value` at the path (the path's last property left out for ABSENT). */
function at(segments: string[], value: unknown): object {
  const leaf: Record<string, unknown> = {};
  if (value !== ABSENT) leaf[segments[segments.length - 1]!] = value;
  return segments.slice(0, -1).reduceRight<Record<string, unknown>>((inner, segment) => ({ [segment]: inner }), leaf);
}

/** Values that, between them, behave as every value can toward the literals' constants. */
function candidates(literals: Literal[], values: ReadonlyMap<string, unknown>): unknown[] {
  const constants = literals.flatMap((literal) => {
    const value = substitute(literal.value, values);
    return Array.isArray(value) ? value : [value];
  });
  const pivots = numericPivots(constants);
  const numbers = pivots.flatMap((pivot, index) => [pivot + 1, index + 1 < pivots.length ? (pivot + pivots[index + 1]!) / 2 : pivot + 1, pivot - 1]);
  const strings = constants.filter((value): value is string => typeof value === 'string');
  const fresh = ['other', ...strings.map((value) => `${value}\u0000`), '', '\u0000', ...pivots.map(String)];
  // The constants first, then the most legible values: a witness is read by people.
  const booleans = constants.some((value) => typeof value === 'boolean') ? [false, true] : [];
  const ordered = constants.some((value) => typeof value === 'number' || typeof value === 'string');
  const empty = ordered ? [] : [null, ABSENT];
  return unique([...constants, ...booleans, ...empty, ...numbers, 0, ...fresh, true, false, null, ABSENT, OBJECT]);
}

/** The numbers the constants compare as (`<` converts null, booleans and numeric strings), sorted. */
function numericPivots(constants: unknown[]): number[] {
  const numbers = constants
    .filter((value) => value === null || ['number', 'boolean', 'string'].includes(typeof value))
    .map((value) => (typeof value === 'string' && value.trim() === '' ? Number.NaN : Number(value)))
    .filter(Number.isFinite);
  return [...new Set(numbers)].sort((a, b) => a - b);
}

function unique(values: unknown[]): unknown[] {
  const seen = new Set<unknown>();
  return values.filter((value) => !(typeof value === 'number' && !Number.isFinite(value)) && !seen.has(value) && seen.add(value));
}

/** The values a placeholder is tried with. */
function variableDomain(name: string, constants: unknown[]): unknown[] {
  if (name === 'user.is_admin') return [false, true];
  if (name === 'user.id' || name === 'org.id') return positiveIntegers(numericPivots(constants));
  const strings = constants.filter((value): value is string => typeof value === 'string');
  if (name === 'org.slug') return unique([...strings.filter((value) => /^[a-z0-9-]{2,48}$/.test(value)), 'acme', 'globex']);
  if (name === 'user.email') return unique([...strings.filter((value) => value.includes('@')), 'ann@example.com', 'bob@example.com']);
  return unique([...constants, 'value-1', 'value-2']);
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
