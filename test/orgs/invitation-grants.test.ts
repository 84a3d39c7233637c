/**
 * An invitation grants its roles in its inviter's name, so only while the inviter may still
 * grant them: an admin who invites someone as `admin` and is then demoted to `viewer`, removed
 * from the organization or deleted cannot have that person join as an admin later. The invitee
 * gets 400 `invalid_invitation`, as for a revoked invitation, and joins nothing.
 */
import { expect } from 'chai';
import request from 'supertest';
import { createAppWithOutbox, outboxMails, PASSWORD, sessionCookieFrom, type AppWithOutbox } from '../helpers/app.js';
import { defineDemoOrgRoles } from './org-roles.js';

const PREFIX = '/service-auth';

describe('invitations whose inviter lost the right to grant their roles', () => {
  let t: AppWithOutbox;
  let made = 0;

  before(async () => {
    t = await createAppWithOutbox();
    defineDemoOrgRoles(t.auth);
  });
  after(() => t.close());

  /** A signed-in user (a program with a session); `email` is confirmed, as created users are. */
  async function signIn(name: string) {
    const email = `${name}-${++made}@example.com`;
    const user = await t.auth.users.create({ email, password: PASSWORD });
    const cookie = sessionCookieFrom(
      await request(t.app).post(`${PREFIX}/login`).send({ email, password: PASSWORD }).expect(200),
    )!;
    const as = (test: request.Test) =>
      test.set('Cookie', cookie).set('Sec-Fetch-Site', 'same-origin').set('Accept', 'application/json');
    return {
      id: user.id,
      email,
      post: (path: string, body: object = {}) => as(request(t.app).post(PREFIX + path)).send(body),
      get: (path: string) => as(request(t.app).get(PREFIX + path)),
    };
  }

  async function tokenMailedTo(to: string): Promise<string> {
    const pattern = /invitations\/accept\?token=([A-Za-z0-9_-]+)/;
    const deadline = Date.now() + 5000;
    for (;;) {
      const mail = (await outboxMails(t.outbox, 0)).find((m) => m.to === to && pattern.test(m.text));
      if (mail) return pattern.exec(mail.text)![1]!;
      if (Date.now() > deadline) throw new Error(`no invitation mailed to ${to}`);
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
  }

  /** An organization with an owner and an admin, and an invitation as `admin` the admin sent to a new user. */
  async function invitedByAdmin(slug: string) {
    const [owner, admin, invitee] = [await signIn('owner'), await signIn('admin'), await signIn('invitee')];
    const org = await t.auth.orgs.create({ name: slug, slug, owner: owner.id });
    await t.auth.orgs.addMember(org.id, admin.id, ['admin']);
    await admin.post(`/api/orgs/${slug}/invitations`, { email: invitee.email, roles: ['admin'] }).expect(201);
    return { org, owner, admin, invitee, token: await tokenMailedTo(invitee.email) };
  }

  async function refusedAndNotIn({ org, invitee, token }: Awaited<ReturnType<typeof invitedByAdmin>>) {
    const refused = await invitee.post('/api/invitations/accept', { token }).expect(400);
    expect(refused.body.code).to.equal('invalid_invitation');
    expect((await t.auth.orgs.members(org.id)).map((member) => member.user_id)).not.to.include(invitee.id);
  }

  it('refuses it once the inviter is demoted to a role that may not assign its roles', async () => {
    const invited = await invitedByAdmin('demoted-inviter');
    await t.auth.orgs.setMemberRoles(invited.org.id, invited.admin.id, ['viewer']);
    await refusedAndNotIn(invited);
  });

  it('refuses it once the inviter left the organization', async () => {
    const invited = await invitedByAdmin('departed-inviter');
    await t.auth.orgs.removeMember(invited.org.id, invited.admin.id);
    await refusedAndNotIn(invited);
  });

  it('revokes what a deleted user invited to: it is no longer listed, and refused', async () => {
    const invited = await invitedByAdmin('deleted-inviter');
    await t.auth.users.delete(invited.admin.id);
    expect(await t.auth.orgs.invitations(invited.org.id)).to.deep.equal([]);
    await refusedAndNotIn(invited);
  });

  it('accepts it while the inviter may still grant its roles, and one made by code (no inviter) as it is', async () => {
    const invited = await invitedByAdmin('steady-inviter');
    // Another role that still lets them assign `admin`: the invitation holds.
    await t.auth.orgs.setMemberRoles(invited.org.id, invited.admin.id, ['admin', 'member']);
    expect(
      (await invited.invitee.post('/api/invitations/accept', { token: invited.token }).expect(200)).body.roles,
    ).to.deep.equal(['admin']);

    const guest = await signIn('guest');
    await t.auth.orgs.invite(invited.org.id, { email: guest.email, roles: ['owner'] });
    expect(
      (await guest.post('/api/invitations/accept', { token: await tokenMailedTo(guest.email) }).expect(200)).body.roles,
    ).to.deep.equal(['owner']);
  });
});
