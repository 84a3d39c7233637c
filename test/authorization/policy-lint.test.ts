/**
 * `auth.policies.lint()` (CONTRACT-3 §22): rules that can never decide (conditions no subject
 * meets, rules wholly overridden by a later rule), duplicates, and organization-role rules on
 * entities without the tenant field. Each finding names the role and the rule.
 */
import { expect } from 'chai';
import { defineEntity } from '@mikro-orm/core';
import { createTestApp, type TestApp } from '../helpers/app.js';

const p = defineEntity.properties;
const Task = defineEntity({
  name: 'Task',
  properties: { id: p.integer().primary(), org_id: p.integer(), title: p.string() },
});
const Tag = defineEntity({ name: 'Tag', properties: { id: p.integer().primary(), label: p.string() } });
const Score = defineEntity({
  name: 'Score',
  properties: { id: p.integer().primary(), points: p.integer(), done: p.boolean(), tag: () => p.manyToOne(Tag) },
});

describe('auth.policies.lint()', () => {
  let t: TestApp;
  before(async () => {
    t = await createTestApp({}, (_app, auth) => {
      auth.defineRole('clean', [
        { action: 'read', subject: 'Report', conditions: { n: { $gt: 3, $lt: 5 } } },
        { action: 'read', subject: 'Report', inverted: true, conditions: { secret: true } },
        { action: 'update', subject: 'Report', fields: ['title'] },
        { action: 'update', subject: 'Report', inverted: true, fields: ['title'], conditions: { locked: true } },
      ]);
      auth.defineRole('broken', [
        { action: 'read', subject: 'Report', conditions: { n: { $gt: 5, $lt: 3 } } },
        { action: 'read', subject: 'Report', conditions: { team: 'north', year: 2026 } },
        { action: ['read', 'update'], subject: 'Report', conditions: { team: 'north' } },
        { action: 'read', subject: 'Note', conditions: { $or: [{ a: { $in: [] } }, { a: 1, $and: [{ a: 2 }] }] } },
        { action: 'read', subject: 'Note' },
        { action: 'read', subject: 'Note' },
      ]);
      auth.defineRole('base', [{ action: 'read', subject: 'Log' }]);
      auth.defineRole('extended', [{ action: 'read', subject: 'Log' }], { includes: ['base'] });
      auth.defineRole('typed', [
        { action: 'read', subject: 'Score', conditions: { points: '1', done: { $in: [true, 'false'] } } },
        { action: 'read', subject: 'Score', conditions: { 'tag.label': { $lt: 5 }, points: '${user.id}' } },
        { action: 'read', subject: 'Score', conditions: { points: { $gte: 2 }, 'tag.label': 'x' } },
      ]);
      auth.defineOrgRole('member', [
        { action: 'read', subject: ['Task', 'Tag'] },
        { action: 'read', subject: 'Organization' },
      ]);
    });
  });
  after(() => t.auth.close());

  const findings = (entities?: unknown[]) =>
    t.auth.policies
      .lint(entities ? { entities } : {})
      .findings.map(({ kind, role, org_role, rule }) => [kind, role, org_role ?? false, rule]);

  it('reports rules no subject meets, rules a later rule overrides, and duplicates, by role and rule', () => {
    expect(findings()).to.deep.equal([
      ['unsatisfiable', 'broken', false, 1],
      ['overridden', 'broken', false, 2],
      ['unsatisfiable', 'broken', false, 4],
      // Rule 5 is overridden by rule 6, its duplicate: said once, of the later one.
      ['duplicate', 'broken', false, 6],
      ['duplicate', 'extended', false, 1],
      // `done` compared with a boolean and a string: only a null `done` fits both, and null is in neither (How a rule applies).
      ['unsatisfiable', 'typed', false, 1],
    ]);
  });

  it('says why, in words naming the rules', () => {
    const [unsatisfiable, overridden] = t.auth.policies.lint().findings;
    expect(unsatisfiable!.message).to.equal('never decides: no subject meets its conditions {"n":{"$gt":5,"$lt":3}}');
    expect(overridden!.message).to.equal('never decides: rule 3, later in the role, applies wherever it does');
  });

  it("with the application's entities, an organization role's rule on an entity without the tenant field", () => {
    const found = t.auth.policies
      .lint({ entities: [[Task, Tag]] })
      .findings.filter(({ kind }) => kind === 'no_tenant_field');
    expect(found.map(({ role, org_role, rule, message }) => ({ role, org_role, rule, message }))).to.deep.equal([
      {
        role: 'member',
        org_role: true,
        rule: 1,
        message:
          'matches nothing: the entity Tag has no tenant field "org_id" (SERVICE_AUTH_TENANT_FIELD), by which an organization role\'s rules are bound to the organization',
      },
    ]);
  });

  it("with the application's entities, rule values of another type than their column, and order operators on a column that is not a number or a date", () => {
    const found = t.auth.policies
      .lint({ entities: [[Task, Tag, Score]] })
      .findings.filter(({ kind }) => kind === 'column_type');
    expect(found.map(({ role, rule, message }) => ({ role, rule, message }))).to.deep.equal([
      {
        role: 'typed',
        rule: 1,
        message: '"points" (Score.points, a number column) is compared with "1", a string: it matches no row',
      },
      {
        role: 'typed',
        rule: 1,
        message: '"done" (Score.done, a boolean column) is compared with "false", a string: it matches no row',
      },
      {
        role: 'typed',
        rule: 2,
        message: '$lt on "tag.label" (Tag.label, a string column): the order operators compare numbers and dates only',
      },
    ]);
    expect(
      t.auth.policies.lint().findings.filter(({ kind }) => kind === 'column_type'),
      'without the entities',
    ).to.deep.equal([]);
  });
});
