/**
 * The last-owner rule as a property: whatever sequence of adding, changing and removing members an
 * organization goes through, `auth.orgs` answers each change as a model of the rule says (done,
 * 404 `not_found`, 409 `already_member`, 409 `last_owner`), its members end as the model's, and it
 * never has no owner.
 */
import { expect } from 'chai';
import fc from 'fast-check';
import { AuthError } from '../../src/errors.js';
import type { AuthUser } from '../../src/index.js';
import type { TestApp } from '../helpers/app.js';
import { newUser, orgApp } from './org-app.js';

type Change = { kind: 'add' | 'set'; who: number; roles: string[] } | { kind: 'remove'; who: number };

const roles = fc.subarray(['owner', 'admin', 'member'], { minLength: 1 });
const who = fc.integer({ min: 0, max: 3 });
const change: fc.Arbitrary<Change> = fc.oneof(
  fc.record({ kind: fc.constant('add' as const), who, roles }),
  fc.record({ kind: fc.constant('set' as const), who, roles }),
  fc.record({ kind: fc.constant('remove' as const), who }),
);

/** What the rule says of `c` on members `model` (user index → roles), and the members after. */
function expected(model: Map<number, string[]>, c: Change): string {
  const member = model.get(c.who);
  const ownerElsewhere = [...model].some(([index, held]) => index !== c.who && held.includes('owner'));
  if (c.kind === 'add') {
    if (member) return 'already_member';
    model.set(c.who, [...c.roles].sort());
    return 'ok';
  }
  if (!member) return 'not_found';
  const losesOwner = member.includes('owner') && (c.kind === 'remove' || !c.roles.includes('owner'));
  if (losesOwner && !ownerElsewhere) return 'last_owner';
  if (c.kind === 'remove') model.delete(c.who);
  else model.set(c.who, [...c.roles].sort());
  return 'ok';
}

describe('the last-owner rule, as a property', () => {
  let t: TestApp;
  let users: AuthUser[];
  let runs = 0;

  before(async () => {
    t = await orgApp();
    users = [];
    for (let i = 0; i < 4; i++) users.push(await newUser(t, `p${i}`));
  });
  after(async () => {
    await t.auth.close();
  });

  it('answers every sequence of changes as the model does, and never leaves an organization without an owner', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(change, { maxLength: 10 }), async (changes) => {
        const org = await t.auth.orgs.create({ name: `Property ${++runs}`, owner: users[0]!.id });
        const model = new Map<number, string[]>([[0, ['owner']]]);
        for (const c of changes) {
          const user = users[c.who]!.id;
          const work =
            c.kind === 'add'
              ? t.auth.orgs.addMember(org.id, user, c.roles)
              : c.kind === 'set'
                ? t.auth.orgs.setMemberRoles(org.id, user, c.roles)
                : t.auth.orgs.removeMember(org.id, user);
          const got = await work.then(
            () => 'ok',
            (error: unknown) => (error instanceof AuthError ? error.code : Promise.reject(error)),
          );
          expect(got, JSON.stringify(c)).to.equal(expected(model, c));
        }
        const members = await t.auth.orgs.members(org.id);
        const byIndex = new Map(members.map((m) => [users.findIndex((u) => u.id === m.user_id), m.roles]));
        expect(byIndex).to.deep.equal(model);
        expect(members.some((m) => m.roles.includes('owner'))).to.equal(true);
      }),
      { numRuns: 40 },
    );
  });
});
