/**
 * ServiceAuth is made of parts (what an application defines, its user attributes, the guards and
 * questions, `req.em`) that it hands over to, not a chain of classes: every member of each part is
 * there on `auth`, once, and behaves as the part's own; and every question resolves who asks the
 * same way (src/authorization/asking.ts).
 */
import { expect } from 'chai';
import { AuthError, ServiceAuth } from '../src/index.js';
import { AuthorizationApi } from '../src/authorization-api.js';
import { EnforcementApi } from '../src/enforcement-api.js';
import { handOver } from '../src/hand-over.js';
import { PolicyDefinitions } from '../src/policy-definitions.js';
import { UserAttributeApi } from '../src/user-attribute-api.js';
import { createTestApp, type TestApp } from './helpers/app.js';

const PARTS = [PolicyDefinitions, UserAttributeApi, AuthorizationApi, EnforcementApi];
const ann = { id: 1, email: 'ann@example.com', roles: ['reader'] };

describe('ServiceAuth, made of parts', () => {
  let t: TestApp;

  before(async () => {
    t = await createTestApp();
    t.auth.defineRole('reader', [{ action: 'read', subject: 'Report', conditions: { team: 'north' } }]);
  });

  after(() => t.auth.close());

  it('extends no class: its parts are objects it holds', () => {
    expect(Object.getPrototypeOf(ServiceAuth.prototype)).to.equal(Object.prototype);
  });

  it("has every member of every part, each the part's own", () => {
    const missing = PARTS.flatMap((part) => Object.getOwnPropertyNames(part.prototype)).filter(
      (name) => name !== 'constructor' && !(name in t.auth),
    );
    expect(missing).to.deep.equal([]);
    expect(t.auth.loginRequired).to.be.a('function').and.to.equal(t.auth.loginRequired);
    expect(t.auth.policies.lint().findings).to.be.an('array');
  });

  it('keeps the members that work on their own when taken off auth (define_policy, roles_required)', () => {
    const { define_policy: definePolicy, roles_required: rolesRequired } = t.auth;
    definePolicy('is_ann', (user) => user.email === ann.email);
    expect(t.auth.can(ann, 'is_ann')).to.equal(true);
    expect(t.auth.can({ ...ann, id: 2, email: 'bob@example.com' }, 'is_ann')).to.equal(false);
    expect(rolesRequired('reader')).to.be.a('function');
  });

  it('reads the definitions of one part in the questions of another', () => {
    t.auth.defineScope('reports', [{ action: 'read', subject: 'Report' }], 'Read reports');
    expect(t.auth.scopes.map(({ name }) => name)).to.deep.equal(['reports']);
    expect(t.auth.abilityFor(ann).can('read', 'Report')).to.equal(true);
    expect(t.auth.abilityFor(ann, { scopes: ['reports'] }).can('update', 'Report')).to.equal(false);
    expect(t.auth.explain(ann, 'read', 'Report', { team: 'north' }).allowed).to.equal(true);
  });

  it('answers an unknown organization alike from every question: 404 not_found', async () => {
    const refusals = await Promise.all([
      t.auth.abilityFor(ann, { org: 'no-such-org' }).then(
        () => null,
        (error: unknown) => error,
      ),
      t.auth.accessibleBy(ann, 'read', 'Report', { org: 'no-such-org' }).then(
        () => null,
        (error: unknown) => error,
      ),
      t.auth.explain(ann, 'read', 'Report', {}, { org: 'no-such-org' }).then(
        () => null,
        (error: unknown) => error,
      ),
    ]);
    for (const refusal of refusals) {
      expect(refusal).to.be.instanceOf(AuthError);
      expect((refusal as AuthError).code).to.equal('not_found');
    }
  });

  it('refuses to hand over a member two parts both define', () => {
    class Facade {}
    class One {
      ask(): number {
        return 1;
      }
    }
    class Other {
      ask(): number {
        return 2;
      }
    }
    handOver(Facade, () => new One(), One);
    expect(() => handOver(Facade, () => new Other(), Other)).to.throw(TypeError, /ask is defined twice/);
  });
});
