/**
 * `auth policy diff` with the entities' columns typed (`--app`; docs/policy-analysis.md, "Values
 * of the column's type"), by property: on generated pairs of policy files (policy-diff-pairs.ts)
 * and typed entities (`a` an integer, `b` a nullable string, `l` a list of strings, `p` a nullable
 * relation to `{ q: boolean, n: [M] }`, `m` to-many `M { x: number, y: string | null }`), the diff
 * reports every difference `can` shows on them, and every witness differs and is such an entity:
 * each value of its column's type, null only where nullable, a list for `l`.
 *
 * 100 runs by default; POLICY_DIFF_RUNS=2000 searches longer.
 */
import { expect } from 'chai';
import fc from 'fast-check';
import type { PolicyChange } from '../../src/authorization/analysis/diff.js';
import type { EntityRelations, PropertyKind } from '../../src/authorization/analysis/relations.js';
import { check, pairOf, RELATIONS, RUNS, TYPES, type Json } from './policy-diff-pairs.js';

const [integer, number] = [fc.constantFrom(0, 1, 2, 3), fc.constantFrom(0, 1, 1.5, 2, 3)];
const text = fc.constantFrom('x', 'y', '1', '', 'ann@example.com', 'acme');
const typedElements = fc.array(fc.record({ x: number, y: fc.oneof(text, fc.constant(null)) }), { maxLength: 3 });
const typedSubject = fc.record({
  a: integer,
  b: fc.oneof(text, fc.constant(null)),
  p: fc.oneof(fc.constant(null), fc.record({ q: fc.boolean(), n: typedElements })),
  m: typedElements,
  org_id: fc.constantFrom(1, 2),
  id: fc.constantFrom(1, 2),
  l: fc.array(text, { maxLength: 3 }),
});

const column = (type: PropertyKind['column'], more?: Partial<PropertyKind>): PropertyKind => ({
  kind: 'scalar',
  column: type,
  ...more,
});
const OWN: [string, PropertyKind][] = [
  ['a', column('number', { integer: true })],
  ['b', column('string', { nullable: true })],
  ['l', column('string', { list: true })],
  ['org_id', column('number')],
  ['id', column('number')],
];
/** The relations and columns of `typedSubject`. */
const TYPED: EntityRelations = new Map<string, Map<string, PropertyKind>>([
  ...TYPES.map((type): [string, Map<string, PropertyKind>] => [type, new Map([...RELATIONS.get(type)!, ...OWN])]),
  [
    'P',
    new Map([
      ['n', { kind: 'many', target: 'M' }],
      ['q', column('boolean')],
    ]),
  ],
  [
    'M',
    new Map([
      ['x', column('number')],
      ['y', column('string', { nullable: true })],
    ]),
  ],
]);

/** Whether each value of a witness is one the entity could hold: of its column's type, null where nullable, a list for `l`. */
function typed(value: unknown, type: string): boolean {
  const fits = (item: unknown, property: PropertyKind): boolean => {
    if (property.kind === 'many')
      return Array.isArray(item) && item.every((element) => typed(element, property.target!));
    if (property.kind === 'one') return item === null || typed(item, property.target!);
    if (property.list) return Array.isArray(item) && item.every((element) => typeof element === property.column);
    if (item === null) return property.nullable === true;
    return typeof item === property.column && (!property.integer || Number.isInteger(item));
  };
  const properties = TYPED.get(type)!;
  return Object.entries(value as Json).every(
    ([name, item]) => properties.has(name) && fits(item, properties.get(name)!),
  );
}

function typedWitness(change: PolicyChange): void {
  if (!TYPES.includes(change.subject)) return;
  expect(typed(change.witness.subject, change.subject), `typed witness of ${JSON.stringify(change)}`).to.equal(true);
}

describe('policy diff, by property, with the columns typed', () => {
  it("reports every difference on typed entities; each witness differs, of the columns' types, a list for a list field", () => {
    fc.assert(
      fc.property(pairOf(typedSubject), (pair) => check(pair, TYPED, typedWitness)),
      { numRuns: RUNS },
    );
  });
});
