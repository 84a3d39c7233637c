/**
 * A scoped token's rule list says what its `can` says (issue 40): `rulesFor` (what explain's
 * why-not, the console's reach and CASL's own walkers read) holds the scopes' refusal above the
 * owner's rules, and that refusal must apply wherever no scope grants, a field the grants name
 * missing from the object included (then no grant applies, matcher.ts). CASL's own choice over
 * that list (`relevantRuleFor`, the first rule that applies) allows exactly what `can` allows.
 */
import { expect } from 'chai';
import { subject as asSubject } from '@casl/ability';
import fc from 'fast-check';
import type { AppAbility } from '../../src/authorization/ability-types.js';
import { toPrincipal } from '../../src/authorization/principal.js';
import type { RoleRule } from '../../src/authorization/role-rules.js';
import { createTestApp, type TestApp } from '../helpers/app.js';

type Rule = ReturnType<AppAbility['relevantRuleFor']> & object;

/** CASL's choice over the list: the first rule, highest priority first, whose conditions apply. */
function listAllows(ability: AppAbility, action: string, object: object, field?: string): boolean {
  const rules = ability.rulesFor(action, 'Doc', field) as readonly Rule[];
  const first = rules.find((rule) => rule.matchesConditions(object));
  return first !== undefined && !first.inverted;
}

const VALUE = fc.constantFrom<unknown>('red', 'blue', 1, null);
const FIELDS = ['team', 'score', 'project.team', 'project.members.team'];
const fieldTest = fc
  .tuple(fc.constantFrom(...FIELDS), VALUE)
  .chain(([field, value]) =>
    fc.constantFrom<Record<string, unknown>>(
      { [field]: value },
      { [field]: { $ne: value } },
      { [field]: { $in: [value] } },
    ),
  );
const conditions = fc.oneof(
  fieldTest,
  fc.array(fieldTest, { minLength: 1, maxLength: 2 }).map(($or) => ({ $or })),
  fieldTest.map((test) => ({ $nor: [test] })),
);
const rule = fc.record(
  {
    action: fc.constantFrom('read', 'manage'),
    subject: fc.constantFrom('Doc', 'all'),
    inverted: fc.boolean(),
    fields: fc.constant(['title']),
    conditions,
  },
  { requiredKeys: ['action', 'subject'], noNullPrototype: true },
) as fc.Arbitrary<RoleRule>;
const maybe = <T>(arbitrary: fc.Arbitrary<T>) => fc.option(arbitrary, { nil: undefined });
const member = fc.option(fc.record({ team: maybe(VALUE) }));
const docs = fc.array(
  fc
    .record({
      team: maybe(VALUE),
      score: maybe(VALUE),
      project: maybe(fc.option(fc.record({ team: maybe(VALUE), members: maybe(fc.array(member, { maxLength: 2 })) }))),
    })
    .map((fields) => JSON.parse(JSON.stringify(fields)) as Record<string, unknown>),
  { minLength: 1, maxLength: 6 },
);

const scopeGrants = fc.array(
  rule.map((one) => ({ ...one, inverted: false })),
  { minLength: 1, maxLength: 3 },
);

describe("a scoped token's rule list", () => {
  let t: TestApp;
  before(async () => {
    t = await createTestApp();
    t.auth.defineRole('vocabulary', [{ action: 'read', subject: 'Doc' }]);
  });
  after(() => t.auth.close());

  const principal = toPrincipal({ id: 1, email: 'ada@example.com', is_admin: false, roles: ['r'] });
  const token = (): AppAbility => t.parts.abilities.forToken(t.auth.abilityFor(principal), principal, ['docs']);

  it('fixed case: a scope granting on a field the object lacks refuses it in the list, as can does', () => {
    t.auth.defineRole('r', [{ action: 'read', subject: 'Doc' }]);
    t.auth.defineScope('docs', [{ action: 'read', subject: 'Doc', conditions: { team: 'red' } }], 'Red documents');
    const ability = token();
    const lacking = asSubject('Doc', { title: 'no team' });
    expect(ability.can('read', lacking), 'can').to.equal(false);
    expect(listAllows(ability, 'read', lacking), 'the list').to.equal(false);
    expect(ability.relevantRuleFor('read', lacking)?.reason).to.equal("This token's scopes do not allow this");
    expect(listAllows(ability, 'read', asSubject('Doc', { team: 'red' })), 'a red one').to.equal(true);
    expect(listAllows(ability, 'read', asSubject('Doc', { team: 'blue' })), 'a blue one').to.equal(false);
  });

  it('CASL over the list allows exactly what can allows, for objects lacking fields, with and without a field', () => {
    fc.assert(
      fc.property(fc.array(rule, { minLength: 1, maxLength: 4 }), scopeGrants, docs, (own, scoped, subjects) => {
        t.auth.defineRole('r', own);
        t.auth.defineScope('docs', scoped, 'Documents');
        const ability = token();
        for (const fields of subjects) {
          for (const field of [undefined, 'title', 'team']) {
            const object = asSubject('Doc', structuredClone(fields));
            const label = `${JSON.stringify(fields)} ${field ?? ''}`;
            expect(listAllows(ability, 'read', object, field), label).to.equal(ability.can('read', object, field));
          }
        }
      }),
      { numRuns: 200 },
    );
  });
});
