/**
 * Lint's dead rules are dead (CONTRACT-3 §22, issue 30 item 7): for generated roles, every rule
 * `auth policy lint` calls `unsatisfiable` or `overridden` can be removed without changing any
 * decision (allowed or not, for every action, subject type, field and generated subject), as
 * decision.ts decides with CASL. The domains are small so that conditions overlap, contradict and
 * repeat: two actions, two subject types, two fields of small numbers (or missing), conditions
 * with each operator the check reads, nested in `$and` and `$or`, and rules with and without
 * `fields`, inverted or not. A third path, `r.n`, goes through a relation that lint does not know
 * the kind of: the subjects hold there an object, or an array of no, one or several elements
 * (two conditions on `r.n` may be met by two elements).
 */
import { expect } from 'chai';
import { createMongoAbility } from '@casl/ability';
import { subject as asSubject } from '@casl/ability';
import fc from 'fast-check';
import { lintRoles } from '../../src/authorization/analysis/lint.js';
import { conditionsMatcher } from '../../src/authorization/conditions.js';
import { decide } from '../../src/authorization/decision.js';
import type { EntityRelations } from '../../src/authorization/analysis/relations.js';
import type { RoleRule } from '../../src/authorization/role-rules.js';

const ACTIONS = ['read', 'update'];
const SUBJECTS = ['Doc', 'Log'];
const FIELDS = ['n', 'm', 'r.n'];
// Small numbers, now and then a null or a number's string (comparisons are strict by type: matcher.ts).
const value = fc.oneof(
  { weight: 8, arbitrary: fc.integer({ min: 0, max: 4 }) },
  fc.constantFrom<number | string | null>(null, '1'),
);
/** What an order operator compares with: not null. */
const bound = fc.oneof({ weight: 8, arbitrary: fc.integer({ min: 0, max: 4 }) }, fc.constant('1'));

const fieldCondition = fc.oneof(
  value,
  fc.record({ $eq: value }, { requiredKeys: [], noNullPrototype: true }),
  fc
    .record(
      { $ne: value, $gt: bound, $gte: bound, $lt: bound, $lte: bound },
      { requiredKeys: [], noNullPrototype: true },
    )
    .filter((operators) => Object.keys(operators).length > 0),
  fc.record({ $in: fc.array(value, { maxLength: 3 }) }, { noNullPrototype: true }),
  fc.record({ $nin: fc.array(value, { maxLength: 3 }) }, { noNullPrototype: true }),
);
const plainConditions = fc.dictionary(fc.constantFrom(...FIELDS), fieldCondition, {
  minKeys: 1,
  maxKeys: 2,
  noNullPrototype: true,
});
const conditions = fc.oneof(
  { weight: 3, arbitrary: plainConditions },
  fc.record({ $and: fc.array(plainConditions, { minLength: 1, maxLength: 2 }) }, { noNullPrototype: true }),
  fc
    .tuple(plainConditions, fc.array(plainConditions, { minLength: 1, maxLength: 2 }))
    .map(([outer, $or]) => ({ ...outer, $or })),
);
const names = (list: string[]) => fc.oneof(fc.constantFrom(...list), fc.subarray(list, { minLength: 1 }));
const rule: fc.Arbitrary<RoleRule> = fc
  .record(
    {
      action: fc.oneof({ weight: 4, arbitrary: names(ACTIONS) }, fc.constant('manage')),
      subject: names(SUBJECTS),
      conditions,
      fields: fc.subarray(['title', 'body'], { minLength: 1 }),
      inverted: fc.boolean(),
    },
    { requiredKeys: ['action', 'subject'], noNullPrototype: true },
  )
  .map((raw) => raw as RoleRule);
// Rules repeated on purpose now and then: duplicates and overrides are what lint looks for.
const rules = fc
  .array(rule, { minLength: 1, maxLength: 6 })
  .chain((list) => fc.array(fc.constantFrom(...list), { maxLength: 2 }).map((again) => [...list, ...again]));
const element = fc.record({ n: value }, { requiredKeys: [], noNullPrototype: true });
const subjectFields = fc.record(
  { n: value, m: value, r: fc.oneof(element, fc.array(element, { maxLength: 3 })) },
  { requiredKeys: [], noNullPrototype: true },
);

function decisions(role: readonly RoleRule[], subjects: Record<string, unknown>[]): boolean[] {
  const ability = createMongoAbility([...role], { conditionsMatcher });
  return subjects.flatMap((fields) =>
    ACTIONS.flatMap((action) =>
      SUBJECTS.flatMap((type) =>
        [undefined, 'title', 'body'].map(
          (field) => decide(ability, action, asSubject(type, structuredClone(fields)), field).allowed,
        ),
      ),
    ),
  );
}

describe('property: a rule lint calls dead decides nothing', () => {
  it('removing any rule found unsatisfiable or overridden changes no decision', () => {
    fc.assert(
      fc.property(rules, fc.array(subjectFields, { minLength: 1, maxLength: 8 }), (role, subjects) => {
        const findings = lintRoles([{ role: 'r', org: false, includes: [], rules: role }]).filter(
          ({ kind }) => kind === 'unsatisfiable' || kind === 'overridden',
        );
        const before = decisions(role, subjects);
        for (const { rule: index } of findings) {
          const without = role.filter((_rule, at) => at !== index - 1);
          expect(decisions(without, subjects), `without rule ${index}`).to.deep.equal(before);
        }
      }),
      { numRuns: 400 },
    );
  });

  it('and finds them: the contract example, and a rule a later unconditional one covers', () => {
    const role: RoleRule[] = [
      { action: 'read', subject: 'Doc', conditions: { n: { $gt: 5, $lt: 3 } } },
      { action: 'read', subject: 'Doc', conditions: { n: 1 } },
      { action: 'manage', subject: 'Doc', inverted: true },
    ];
    expect(
      lintRoles([{ role: 'r', org: false, includes: [], rules: role }]).map(({ kind, rule }) => [kind, rule]),
    ).to.deep.equal([
      ['unsatisfiable', 1],
      ['overridden', 2],
    ]);
  });

  it('reads a path through a to-many relation as CASL does: two conditions, two elements', () => {
    const role: RoleRule[] = [
      { action: 'read', subject: 'Doc', conditions: { 'r.n': { $gt: 3, $lt: 1 } } },
      { action: 'read', subject: 'Doc', conditions: { 'r.n': { $in: [] } } },
      { action: 'read', subject: 'Doc', conditions: { 'r.n': 1, $nor: [{ 'r.n': { $in: [1, 2] } }] } },
    ];
    const dead = (relations?: EntityRelations) =>
      lintRoles([{ role: 'r', org: false, includes: [], rules: role }], relations && { relations }).map(
        ({ kind, rule }) => `${kind} ${rule}`,
      );
    // Unknown relation: rule 1 holds for r = [{ n: 4 }, { n: 0 }].
    expect(decisions(role.slice(0, 1), [{ r: [{ n: 4 }, { n: 0 }] }]).some(Boolean)).to.equal(true);
    expect(dead()).to.deep.equal(['unsatisfiable 2', 'unsatisfiable 3']);
    const kinds = (kind: 'one' | 'many'): EntityRelations =>
      new Map([['Doc', new Map([['r', { kind, target: 'R' }]])]]);
    expect(dead(kinds('many'))).to.deep.equal(['unsatisfiable 2', 'unsatisfiable 3']);
    expect(dead(kinds('one'))).to.deep.equal(['unsatisfiable 1', 'unsatisfiable 2', 'unsatisfiable 3']);
  });
});
