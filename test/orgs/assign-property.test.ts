/**
 * The rule that no one grants or takes away an organization role their own ability does not let
 * them assign, as a property over HTTP: for any roles of the caller, any roles of another member
 * and any roles asked for, `PATCH /api/orgs/{org}/members/{user_id}` succeeds exactly when a model
 * of the demo-like roles says it may, and otherwise changes nothing. (An owner outside the case
 * stays in every organization, so that the last-owner rule never decides here.)
 */
import { expect } from 'chai';
import fc from 'fast-check';
import request from 'supertest';
import { createTestApp, PASSWORD, sessionCookieFrom, type TestApp } from '../helpers/app.js';
import { defineDemoOrgRoles } from './org-roles.js';

const ROLES = ['owner', 'admin', 'member', 'viewer'] as const;
type Role = (typeof ROLES)[number];

/** What test/orgs/org-roles.ts lets each role assign. */
function assignable(roles: readonly Role[]): Set<Role> {
  if (roles.includes('owner')) return new Set(ROLES);
  if (roles.includes('admin')) return new Set(['admin', 'member', 'viewer']);
  return new Set();
}

const roleSet = fc.subarray([...ROLES], { minLength: 1 });

describe('assigning organization roles over HTTP, as a property', () => {
  let t: TestApp;
  let cookie: string;
  let ada: number;
  let target: number;
  let made = 0;

  before(async () => {
    // Ada owns an organization for each of the property's 100 runs: past the default bound of 50.
    t = await createTestApp({ SERVICE_AUTH_RATE_LIMIT_ENABLED: false, SERVICE_AUTH_MAX_ORGS_PER_USER: 1000 });
    defineDemoOrgRoles(t.auth);
    ada = (await t.auth.users.create({ email: 'ada@example.com', password: PASSWORD })).id;
    await t.auth.users.create({ email: 'actor@example.com', password: PASSWORD });
    target = (await t.auth.users.create({ email: 'target@example.com', password: PASSWORD })).id;
    cookie = sessionCookieFrom(
      await request(t.app)
        .post('/service-auth/login')
        .send({ email: 'actor@example.com', password: PASSWORD })
        .expect(200),
    )!;
  });
  after(() => t.auth.close());

  it('changes a member’s roles exactly when the caller may update memberships and assign every role added or taken away', async () => {
    await fc.assert(
      fc.asyncProperty(roleSet, roleSet, roleSet, async (actorRoles, targetRoles, wanted) => {
        const org = await t.auth.orgs.create({ name: 'Case', slug: `case-${++made}`, owner: ada });
        await t.auth.orgs.addMember(org.id, 'actor@example.com', actorRoles);
        await t.auth.orgs.addMember(org.id, 'target@example.com', targetRoles);
        const changed = ROLES.filter((role) => targetRoles.includes(role) !== wanted.includes(role));
        const mayUpdate = actorRoles.includes('owner') || actorRoles.includes('admin');
        const allowed = mayUpdate && changed.every((role) => assignable(actorRoles).has(role));

        const response = await request(t.app)
          .patch(`/service-auth/api/orgs/${org.slug}/members/${target}`)
          .set('Cookie', cookie)
          .set('Sec-Fetch-Site', 'same-origin')
          .send({ roles: wanted });
        const after = (await t.auth.orgs.members(org.id)).find((member) => member.user_id === target)!.roles;
        const what = `actor ${actorRoles}, target ${targetRoles}, asked ${wanted}: ${response.status} ${response.text}`;
        if (allowed) {
          expect(response.status, what).to.equal(200);
          expect([...after].sort(), what).to.deep.equal([...wanted].sort());
        } else {
          expect(response.status, what).to.equal(403);
          expect(response.body.code, what).to.equal('forbidden');
          expect([...after].sort(), what).to.deep.equal([...targetRoles].sort());
        }
      }),
      {
        numRuns: 100,
        // Always among the cases: an admin demoting an owner, making one, and making a member.
        examples: [
          [['admin'], ['owner'], ['admin']],
          [['admin'], ['member'], ['owner']],
          [['admin'], ['viewer'], ['member']],
        ],
      },
    );
  });
});
