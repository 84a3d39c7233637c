/**
 * Typos are errors (CONTRACT-3 §22): an action or subject type that no rule of any role (global
 * or organization) names is a TypeError naming the closest known one, so a misspelt name can never
 * pass a test that expects a denial. `manage` and `all` are CASL's; policies are subjects with the
 * action `satisfy`; roles defined after the question's code was written count.
 */
import { expect } from 'chai';
import { subject } from '@casl/ability';
import { createTestApp, type TestApp } from '../helpers/app.js';

const ann = { id: 7, email: 'ann@example.com', is_admin: false, roles: ['viewer'] };

describe('unknown action and subject names', () => {
  let t: TestApp;
  before(async () => {
    t = await createTestApp({}, (_app, auth) => {
      auth.defineRole('viewer', [{ action: 'read', subject: 'Report', conditions: { team: 'north' } }]);
      auth.defineRole('admin', [{ action: 'manage', subject: 'all' }]);
      auth.defineOrgRole('member', [{ action: 'create', subject: 'Task' }]);
      auth.definePolicy('is_self', (user, { user_id }) => user.id === user_id);
    });
  });
  after(() => t.auth.close());

  it('explain, accessibleBy and permittedFields refuse a misspelt subject type, naming the closest', () => {
    const message = /no rule of any role names the subject type "Reprot"; did you mean "Report"\?/;
    expect(() => t.auth.explain(ann, 'read', 'Reprot')).to.throw(TypeError, message);
    expect(() => t.auth.accessibleBy(ann, 'read', 'Reprot')).to.throw(TypeError, message);
    expect(() => t.auth.permittedFields(ann, 'read', 'Reprot')).to.throw(TypeError, message);
    expect(() => t.auth.permittedFields(ann, 'read', subject('Reprot', { team: 'north' }))).to.throw(
      TypeError,
      message,
    );
  });

  it('and a misspelt action', () => {
    expect(() => t.auth.explain(ann, 'raed', 'Report')).to.throw(TypeError, /the action "raed"; did you mean "read"\?/);
    expect(() => t.auth.accessibleBy(ann, 'raed', 'Report')).to.throw(
      TypeError,
      /accessibleBy: no rule of any role names the action "raed"/,
    );
  });

  it("accepts manage and all, names only organization roles use, and policies (action satisfy); manage makes only CASL's usual actions known", () => {
    expect(t.auth.explain(ann, 'manage', 'all').allowed).to.equal(false);
    expect(t.auth.explain(ann, 'create', 'Task').allowed).to.equal(false);
    expect(t.auth.explain(ann, 'satisfy', 'is_self', { user_id: 7 }).allowed).to.equal(true);
    // admin's `manage all` grants delete without naming it; a misspelt action is still refused.
    expect(t.auth.explain({ ...ann, roles: ['admin'] }, 'delete', 'Report').allowed).to.equal(true);
    expect(() => t.auth.explain(ann, 'delte', 'Report')).to.throw(
      TypeError,
      /the action "delte"; did you mean "delete"\?/,
    );
    expect(() => t.auth.explain(ann, 'publish', 'Report')).to.throw(TypeError, /the action "publish"/);
  });

  it('checks when asked, so a role defined later makes its names known', () => {
    expect(() => t.auth.explain(ann, 'archive', 'Report')).to.throw(TypeError);
    t.auth.defineRole('archivist', [{ action: 'archive', subject: 'Report' }]);
    expect(t.auth.explain(ann, 'archive', 'Report')).to.deep.include({ allowed: false, rule: null });
  });
});
