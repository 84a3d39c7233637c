/**
 * One decision everywhere (CONTRACT-4 §28, issue 40 item 7): for generated roles, organization
 * roles and scopes (inverted rules, dotted paths through a to-one and a to-many relation, `$or`
 * and `$nor`, values of the field's type or of another, `${user.team}` with a value of either type
 * or none) and generated subjects (fields missing, `null`, of another type; `null` relations and
 * `null` elements), every door answers alike: `auth.abilityFor(…).can`, `explain` (allowed, and
 * the rule CASL found deciding), policy tests, the console's reach, the client's ability over the
 * rules `GET /api/abilities` serialises (everywhere, in an organization, for a scoped token), and
 * `auth.policies.diff` against brute force over the subjects. `accessibleBy` is held to `can` by
 * accessible-by*.test.ts, lint's dead rules by dead-rules.test.ts, with this same matcher.
 */
import { expect } from 'chai';
import { createMongoAbility, subject as asSubject } from '@casl/ability';
import fc from 'fast-check';
import type { AppAbility } from '../../src/authorization/ability-types.js';
import { conditionsMatcher } from '../../src/authorization/conditions.js';
import { reachOf } from '../../src/authorization/reach.js';
import type { RoleRule } from '../../src/authorization/role-rules.js';
import { toPrincipal } from '../../src/authorization/principal.js';
import { createClientAbility } from '../../src/client/index.js';
import { createTestApp, type TestApp } from '../helpers/app.js';

const TEAM = fc.constantFrom<unknown>('red', 'blue', null, 1, '${user.team}');
const SCORE = fc.constantFrom<unknown>(0, 1, 2, '1', null);
const FIELDS: [string, fc.Arbitrary<unknown>][] = [
  ['team', TEAM],
  ['score', SCORE],
  ['project.owner.team', TEAM],
  ['project.members.team', TEAM],
];
const fieldTest = fc.constantFrom(...FIELDS).chain(([field, value]) =>
  fc.oneof(
    value.map((item) => ({ [field]: item })),
    value.map((item) => ({ [field]: { $ne: item } })),
    fc.array(value, { maxLength: 2 }).map((items) => ({ [field]: { $in: items } })),
    fc.array(value, { maxLength: 2 }).map((items) => ({ [field]: { $nin: items } })),
    fc
      .tuple(fc.constantFrom('$lt', '$gt'), fc.constantFrom(0, 1, 2, '1'))
      .map(([operator, item]) => ({ [field]: { [operator]: item } })),
  ),
);
const fieldTests = fc
  .array(fieldTest, { minLength: 1, maxLength: 2 })
  .map((tests) => Object.assign({}, ...tests) as Record<string, unknown>);
const conditions = fc.oneof(
  { weight: 4, arbitrary: fieldTests },
  fc.array(fieldTests, { minLength: 1, maxLength: 2 }).map(($or) => ({ $or })),
  fieldTests.map((tests) => ({ $nor: [tests] })),
);
const rule = fc.record(
  {
    action: fc.constantFrom('read', 'read', 'manage'),
    subject: fc.constantFrom('Doc', 'Doc', 'all'),
    inverted: fc.boolean(),
    conditions,
  },
  { requiredKeys: ['action', 'subject'], noNullPrototype: true },
) as fc.Arbitrary<RoleRule>;
const rules = fc.array(rule, { minLength: 1, maxLength: 4 });
/** A scope only grants. */
const grants = fc.array(
  rule.map((one) => ({ ...one, inverted: false })),
  { minLength: 1, maxLength: 3 },
);

const maybe = <T>(arbitrary: fc.Arbitrary<T>) => fc.option(arbitrary, { nil: undefined });
const teamOf = fc.record({ team: maybe(TEAM.filter((team) => team !== '${user.team}')) }).map(defined);
const docs = fc.array(
  fc
    .record({
      team: maybe(TEAM.filter((team) => team !== '${user.team}')),
      score: maybe(SCORE),
      org_id: maybe(fc.constantFrom(1, 2)),
      project: maybe(
        fc.option(
          fc
            .record({ owner: maybe(fc.option(teamOf)), members: maybe(fc.array(fc.option(teamOf), { maxLength: 2 })) })
            .map(defined),
        ),
      ),
    })
    .map(defined),
  { minLength: 1, maxLength: 6 },
);
const attributes = fc.constantFrom<Record<string, unknown>>({}, { team: 'red' }, { team: 'blue' }, { team: 1 });

function defined<T extends object>(object: T): T {
  return Object.fromEntries(Object.entries(object).filter(([, value]) => value !== undefined)) as T;
}

describe('one decision everywhere, by property', () => {
  let t: TestApp;
  before(async () => {
    t = await createTestApp();
    t.auth.defineUserAttributes(['team']);
    t.auth.defineRole('vocabulary', [{ action: 'read', subject: 'Doc' }]);
  });
  after(() => t.auth.close());

  const user = (roles: string[], values: Record<string, unknown>) =>
    toPrincipal({ id: 1, email: 'ada@example.com', is_admin: false, roles, attributes: values });
  const doc = (fields: object) => asSubject('Doc', structuredClone(fields));
  const canAll = (ability: AppAbility, subjects: object[]) =>
    subjects.map((fields) => ability.can('read', doc(fields)));

  it('guards, can, explain, policy tests, reach and the client agree, everywhere, in an organization and for a scoped token', () => {
    fc.assert(
      fc.property(rules, rules, grants, attributes, docs, (own, orgOwn, scoped, values, subjects) => {
        t.auth.defineRole('r', own);
        t.auth.defineOrgRole('o', orgOwn);
        t.auth.defineScope('docs', scoped, 'Documents');
        const principal = user(['r'], values);
        const ability = t.auth.abilityFor(principal);
        const allowed = canAll(ability, subjects);
        const client = createClientAbility(t.parts.abilities.serializableRules(principal));
        expect(canAll(client as AppAbility, subjects), 'the client').to.deep.equal(allowed);
        subjects.forEach((fields, index) => {
          const explained = t.auth.explain(
            principal,
            'read',
            'Doc',
            structuredClone(fields) as Record<string, unknown>,
          );
          expect(explained.allowed, `explain ${JSON.stringify(fields)}`).to.equal(allowed[index]);
          const deciding = ability.relevantRuleFor('read', doc(fields));
          expect(explained.rule?.index ?? null, 'the deciding rule').to.equal(
            deciding ? (t.parts.abilities.sourceOf(deciding.origin)?.index ?? null) : null,
          );
        });
        const report = t.auth.testPolicies({
          principals: { ada: { roles: ['r'], attributes: values } },
          tests: subjects.map((fields, index) => ({
            principal: 'ada',
            action: 'read',
            subject: 'Doc',
            fields,
            allowed: allowed[index],
          })),
        });
        expect(report.failed, 'policy tests').to.equal(0);
        const reach = reachOf(ability, 'read', 'Doc');
        if (reach === 'all') expect(allowed, 'reach all').to.not.include(false);
        if (reach === 'none') expect(allowed, 'reach none').to.not.include(true);
        // In an organization (id 1), as the membership's roles make it; and a token with the scope.
        const place = { org: { id: 1, slug: 'acme' }, roles: ['o'] };
        const inOrg = t.parts.abilities.abilityFor(principal, place);
        const orgClient = createClientAbility(t.parts.abilities.serializableRules(principal, place));
        expect(canAll(orgClient as AppAbility, subjects), 'the client in the organization').to.deep.equal(
          canAll(inOrg, subjects),
        );
        const token = t.parts.abilities.forToken(ability, principal, ['docs']);
        const tokenClient = createClientAbility(t.parts.abilities.serializableRules(principal, undefined, ['docs']));
        const tokenAllowed = canAll(token, subjects);
        expect(canAll(tokenClient as AppAbility, subjects), 'the client for a scoped token').to.deep.equal(
          tokenAllowed,
        );
        subjects.forEach((fields, index) => {
          expect(
            t.auth.explain(principal, 'read', 'Doc', structuredClone(fields) as Record<string, unknown>).allowed ||
              !tokenAllowed[index],
            'the token within its owner',
          ).to.equal(true);
        });
      }),
      { numRuns: 80 },
    );
  });

  it("the console's reach: all exactly when can allows every subject, none exactly when it allows none (issue 39)", () => {
    // Each rule tests a field of its own, so that every combination of rules applying is some subject.
    const reachRules = fc.array(
      fc.record({ inverted: fc.boolean(), conditional: fc.boolean(), action: fc.constantFrom('read', 'manage') }),
      { minLength: 1, maxLength: 4 },
    );
    fc.assert(
      fc.property(reachRules, (drawn) => {
        const own = drawn.map(({ inverted, conditional, action }, index) => ({
          action,
          subject: 'Doc',
          inverted,
          ...(conditional && { conditions: { [`f${index}`]: 'a' } }),
        }));
        t.auth.defineRole('r', own);
        const ability = t.auth.abilityFor(user(['r'], {}));
        let subjects: Record<string, string>[] = [{}];
        for (let index = 0; index < own.length; index++)
          subjects = subjects.flatMap((fields) => [
            fields,
            { ...fields, [`f${index}`]: 'a' },
            { ...fields, [`f${index}`]: 'b' },
          ]);
        const allowed = canAll(ability, subjects);
        const reach = reachOf(ability, 'read', 'Doc');
        expect(reach === 'all', `all: ${reach}`).to.equal(!allowed.includes(false));
        expect(reach === 'none', `none: ${reach}`).to.equal(!allowed.includes(true));
      }),
      { numRuns: 100 },
    );
  });

  it('an ability of many rules finds the deciding rule CASL finds, through its index on an equality field', () => {
    const keyed = fc
      .tuple(rule, fc.constantFrom<unknown>(1, 2, '1', true, { $eq: 2 }, null))
      .map(([one, org]) => ({ ...one, conditions: { ...one.conditions, org_id: org } }) as RoleRule);
    const many = fc.array(fc.oneof({ weight: 3, arbitrary: keyed }, rule), { minLength: 12, maxLength: 30 });
    const withOrg = docs.chain((list) =>
      fc
        .array(fc.constantFrom<unknown>(undefined, null, 1, 2, '1', true), {
          minLength: list.length,
          maxLength: list.length,
        })
        .map((orgs) => list.map((fields, index) => defined({ ...fields, org_id: orgs[index] }))),
    );
    fc.assert(
      fc.property(many, attributes, withOrg, (own, values, subjects) => {
        t.auth.defineRole('r', own);
        const principal = user(['r'], values);
        const indexed = t.auth.abilityFor(principal);
        const plain = createMongoAbility([...indexed.rules], { conditionsMatcher });
        for (const fields of subjects) {
          for (const action of ['read', 'manage']) {
            expect(indexed.relevantRuleFor(action, doc(fields))?.origin ?? null, JSON.stringify(fields)).to.equal(
              plain.relevantRuleFor(action, doc(fields))?.origin ?? null,
            );
          }
        }
      }),
      { numRuns: 60 },
    );
  });

  it('fixed case: diff never gives an attribute the value null, which drops the rule rather than compare', () => {
    const before = [
      {
        action: 'read',
        subject: 'Doc',
        conditions: { 'project.owner.team': { $nin: ['${user.team}'] }, team: { $ne: 'red' } },
      },
    ];
    const added = {
      action: 'read',
      subject: 'Doc',
      inverted: true,
      conditions: { 'project.members.team': { $ne: null }, 'project.owner.team': { $in: ['red'] } },
    };
    const { changes } = t.auth.policies.diff(
      { userAttributes: ['team'], roles: { r: before } },
      { userAttributes: ['team'], roles: { r: [...before, added] } },
    );
    expect(changes.map((change) => change.change)).to.deep.equal(['revoke']);
    expect(changes[0]!.witness.user.attributes!['team']).to.not.equal(null);
  });

  it('fixed case: a witness gives every attribute the rules name a value, even one its deciding conditions do not name', () => {
    const before = [
      { action: 'read', subject: 'Doc' },
      {
        action: 'read',
        subject: 'Doc',
        inverted: true,
        conditions: { 'project.members.team': { $lt: 0 }, team: { $nin: ['${user.team}'] } },
      },
    ];
    const { changes } = t.auth.policies.diff(
      { userAttributes: ['team'], roles: { r: before } },
      { userAttributes: ['team'], roles: { r: [...before, { action: 'read', subject: 'Doc', inverted: true }] } },
    );
    expect(changes.map((change) => change.change)).to.deep.equal(['revoke']);
    expect(changes[0]!.witness.user.attributes).to.have.property('team');
  });

  it('fixed case: diff reports what changes for a user lacking an attribute, whom no value of it stands for', () => {
    const before = [{ action: 'read', subject: 'Doc' }];
    // Never applies to a user with a team; refuses everything to one without (role-rules.ts).
    const never = { $in: ['${user.team}'], $nin: ['${user.team}'] };
    const added = { action: 'read', subject: 'Doc', inverted: true, conditions: { team: never } };
    const sets = [before, [...before, added]].map((rules) => ({ userAttributes: ['team'], roles: { r: rules } }));
    const { changes } = t.auth.policies.diff(sets[0]!, sets[1]!);
    const said = changes.map(({ change, action, subject }) => `${change} ${action} ${subject}`);
    expect(said).to.deep.equal(['revoke read Doc']);
    const { witness } = changes[0]!;
    expect(witness.user.attributes).to.not.have.property('team');
    t.auth.defineRole('after', [...before, added]);
    const can = (values: Record<string, unknown>) =>
      t.auth.abilityFor(user(['after'], values)).can('read', doc(witness.subject));
    expect(can({}), 'the witness, lacking a team').to.equal(false);
    expect(can({ team: 'red' }), 'with a team').to.equal(true);
  });

  it('diff reports a change wherever a generated subject is decided otherwise, in the direction seen', () => {
    fc.assert(
      // Users who hold a value for each attribute the rules name, and users who lack it ({}).
      fc.property(rules, rule, attributes, docs, (before, added, values, subjects) => {
        const after = [...before, added];
        t.auth.defineRole('before', before);
        t.auth.defineRole('after', after);
        const was = canAll(t.auth.abilityFor(user(['before'], values)), subjects);
        const is = canAll(t.auth.abilityFor(user(['after'], values)), subjects);
        const { changes, not_analysed } = t.auth.policies.diff(
          { userAttributes: ['team'], roles: { r: before } },
          { userAttributes: ['team'], roles: { r: after } },
        );
        if (not_analysed.length > 0) return;
        const whole = changes.filter(
          (change) =>
            change.fields === null &&
            ['read', 'manage'].includes(change.action) &&
            ['Doc', 'all'].includes(change.subject),
        );
        if (subjects.some((_, index) => is[index] && !was[index]))
          expect(
            whole.map((change) => change.change),
            'a grant',
          ).to.include('grant');
        if (subjects.some((_, index) => was[index] && !is[index]))
          expect(
            whole.map((change) => change.change),
            'a revoke',
          ).to.include('revoke');
      }),
      { numRuns: 30 },
    );
  });

  it('diff reports what changes for a user lacking the attribute the rules name, checked against brute force', () => {
    // Each rule names ${user.team}: a user without one loses the grants and is refused by the refusals
    // (of a rule that no team lets apply too: then only that user sees a change).
    const naming = fc.constantFrom<unknown>({ $ne: '${user.team}' }, { $in: ['${user.team}'], $nin: ['${user.team}'] });
    const teamRule = fc
      .tuple(rule, fc.constantFrom('team', 'project.owner.team'), naming)
      .map(([one, field, test]) => ({ ...one, conditions: { ...one.conditions, [field]: test } }));
    const befores = fc.array(fc.oneof(rule, teamRule), { minLength: 1, maxLength: 3 });
    fc.assert(
      fc.property(befores, teamRule, docs, (before, added, subjects) => {
        const after = [...before, added];
        t.auth.defineRole('before', before);
        t.auth.defineRole('after', after);
        const was = canAll(t.auth.abilityFor(user(['before'], {})), subjects);
        const is = canAll(t.auth.abilityFor(user(['after'], {})), subjects);
        const sets = [before, after].map((rules) => ({ userAttributes: ['team'], roles: { r: rules } }));
        const { changes, not_analysed } = t.auth.policies.diff(sets[0]!, sets[1]!);
        if (not_analysed.length > 0) return;
        const asked = (change: { action: string; subject: string }) =>
          ['read', 'manage'].includes(change.action) && ['Doc', 'all'].includes(change.subject);
        const whole = changes.filter((change) => change.fields === null && asked(change)).map(({ change }) => change);
        if (subjects.some((_, index) => is[index] && !was[index])) expect(whole, 'a grant').to.include('grant');
        if (subjects.some((_, index) => was[index] && !is[index])) expect(whole, 'a revoke').to.include('revoke');
      }),
      { numRuns: 30 },
    );
  });
});
