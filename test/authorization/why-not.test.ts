/**
 * Why not (CONTRACT-3 §22): a refusal names each rule that could have allowed the action on that
 * subject type, with the first of its conditions that failed (field, operator, wanted, actual), or
 * the inverted rule that refused.
 */
import { expect } from 'chai';
import { whyNotLines } from '../../cli/commands/explanations.js';
import { createTestApp, type TestApp } from '../helpers/app.js';

const bea = { id: 3, email: 'bea@example.com', is_admin: false, roles: ['editor'] };
const cal = { id: 5, email: 'cal@example.com', is_admin: false, roles: ['reader'] };

describe('explain: why not', () => {
  let t: TestApp;
  before(async () => {
    t = await createTestApp({}, (_app, auth) => {
      auth.defineRole('editor', [
        {
          action: 'update',
          subject: 'Doc',
          conditions: { owner_id: '${user.id}', status: { $in: ['draft', 'review'] } },
        },
        { action: 'update', subject: 'Doc', conditions: { shared: true, pages: { $lt: 10 } } },
        { action: 'update', subject: 'Doc', fields: ['title'], conditions: { team: { $ne: null } } },
        { action: 'update', subject: 'Doc', inverted: true, conditions: { locked: true }, reason: 'Locked' },
      ]);
      auth.defineRole('reader', [
        { action: 'read', subject: 'Task', conditions: { 'project.members.user_id': '${user.id}' } },
      ]);
    });
  });
  after(() => t.auth.close());

  it('names, for each rule that could have allowed it, the first condition the subject fails, with both values', () => {
    const explanation = t.auth.explain(bea, 'update', 'Doc', {
      owner_id: 3,
      status: 'published',
      shared: true,
      pages: 12,
    });
    expect(explanation).to.deep.include({ allowed: false, rule: null });
    expect(explanation.why_not!.map(({ rule, failed }) => [rule.index, failed])).to.deep.equal([
      [1, { field: 'status', operator: '$in', expected: ['draft', 'review'], actual: 'published' }],
      [2, { field: 'pages', operator: '$lt', expected: 10, actual: 12 }],
      [3, { field: 'team', operator: '$ne', expected: null, missing: true }],
    ]);
  });

  it('in the order the rule writes its conditions, placeholders filled in for the user', () => {
    const [first] = t.auth.explain(bea, 'update', 'Doc', { owner_id: 4, status: 'published' }).why_not!;
    expect(first!.failed).to.deep.equal({ field: 'owner_id', operator: '$eq', expected: 3, actual: 4 });
  });

  it('names the inverted rule that refused when an allowing rule matched', () => {
    const explanation = t.auth.explain(bea, 'update', 'Doc', { owner_id: 3, status: 'draft', locked: true });
    expect(explanation.rule).to.deep.include({ index: 4, inverted: true, reason: 'Locked' });
    const [first] = explanation.why_not!;
    expect(first!.rule.index).to.equal(1);
    expect(first!.failed).to.equal(undefined);
    expect(first!.refused_by).to.deep.include({ role: 'editor', index: 4, inverted: true });
  });

  it('through a list, names each element and its value, not a field the subject lacks', () => {
    const failed = (project: unknown) => t.auth.explain(cal, 'read', 'Task', { project }).why_not![0]!.failed;
    expect(failed({ members: [{ user_id: 7 }, { role: 'owner' }] })).to.deep.equal({
      field: 'project.members.user_id',
      operator: '$eq',
      expected: 5,
      actual: [7, undefined],
      elements: [{ path: 'project.members[0].user_id', value: 7 }, { path: 'project.members[1].user_id' }],
    });
    expect(failed({ members: [] })!.elements).to.deep.equal([{ path: 'project.members', value: [] }]);
    // Without the list, the field is missing as before.
    expect(failed({})).to.deep.equal({ field: 'project.members.user_id', operator: '$eq', expected: 5, missing: true });
    expect(
      t.auth.explain(cal, 'read', 'Task', { project: { members: [{ user_id: 7 }, { user_id: 5 }] } }).allowed,
    ).to.equal(true);
    // As auth check words it.
    expect(
      whyNotLines(t.auth.explain(cal, 'read', 'Task', { project: { members: [{ user_id: 7 }, { role: 'owner' }] } })),
    ).to.deep.equal([
      'why not:',
      '  role "reader", rule 1: can read Task where {"project.members.user_id":5}\n' +
        "    fails project.members.user_id $eq 5: the subject's project.members[0].user_id is 7, project.members[1].user_id is absent",
    ]);
  });

  it('says nothing of why not when allowed', () => {
    expect(t.auth.explain(bea, 'update', 'Doc', { owner_id: 3, status: 'draft' })).to.not.have.property('why_not');
  });
});
