/**
 * Invitations (CONTRACT §20.3): mailed once with a single-use token stored hashed, accepted only by
 * the user whose confirmed address was invited, revoked, replaced, expired; and the events and
 * audit records of organizations, handed the acting user. One application for the file, its mail
 * kept in memory.
 */
import { expect } from 'chai';
import type { Mail } from '../../src/index.js';
import type { OrgEventDetail } from '../../src/events.js';
import { sha256Hex } from '../../src/secrets.js';
import { Invitation, User } from '../../src/storage/entities/index.js';
import type { TestApp } from '../helpers/app.js';
import { newUser, orgApp, refusal } from './org-app.js';

describe('invitations', () => {
  let t: TestApp;
  const mails: Mail[] = [];

  before(async () => {
    t = await orgApp({ SERVICE_AUTH_PUBLIC_URL: 'https://auth.example.com' });
    t.auth.mail = { send: async (mail) => void mails.push(mail) };
  });
  after(async () => {
    await t.auth.close();
  });

  /** The token of the last invitation mailed to `email`. */
  function tokenMailedTo(email: string): string {
    const mail = mails.filter((m) => m.to === email).at(-1);
    const match = mail && /\/service-auth\/invitations\/accept\?token=([A-Za-z0-9_-]+)/.exec(mail.text);
    if (!match) throw new Error(`no invitation mailed to ${email}`);
    return match[1]!;
  }

  async function orgWithOwner(name: string) {
    const owner = await newUser(t, 'owner');
    return { owner, org: await t.auth.orgs.create({ name, owner: owner.id }) };
  }

  it('mails a link to the public URL with a token stored only as its SHA-256; lists it, never the token', async () => {
    const { owner, org } = await orgWithOwner('Inviting');
    const invitation = await t.auth.orgs.invite(
      org.slug,
      { email: '  New.Person@Example.com ', roles: ['member', 'viewer'] },
      owner,
    );
    expect(invitation).to.have.keys('id', 'email', 'roles', 'created_at', 'expires_at');
    expect(invitation).to.include({ email: 'new.person@example.com' });
    expect(invitation.roles).to.deep.equal(['member', 'viewer']);
    expect(Date.parse(invitation.expires_at) - Date.parse(invitation.created_at)).to.equal(7 * 86_400_000);
    const mail = mails.at(-1)!;
    expect(mail).to.include({ to: 'new.person@example.com', subject: 'You are invited to join Inviting' });
    expect(mail.text).to.contain('within 7 days');
    const token = tokenMailedTo('new.person@example.com');
    expect(mail.text).to.contain(`https://auth.example.com/service-auth/invitations/accept?token=${token}`);

    const row = await (await t.parts.storage.em()).fork().findOneOrFail(Invitation, { id: invitation.id });
    expect(row.tokenHash).to.equal(sha256Hex(token));
    expect(row.invitedBy?.id).to.equal(owner.id);
    expect(await t.auth.orgs.invitations(org.id)).to.deep.equal([invitation]);
    expect(JSON.stringify(await t.auth.audit.query())).not.to.contain(token);
  });

  it('lets the invited address’s user join once, with the invitation’s roles; the token then stops working', async () => {
    const { org } = await orgWithOwner('Joinable');
    const ada = await newUser(t, 'ada');
    await t.auth.orgs.invite(org.id, { email: ada.email.toUpperCase(), roles: ['admin'] });
    const token = tokenMailedTo(ada.email);
    expect(await t.auth.orgs.acceptInvitation(token, ada.id)).to.deep.equal({ org, roles: ['admin'] });
    expect(await t.auth.orgs.membership(org.id, ada.id)).to.deep.include({ roles: ['admin'] });
    expect(await t.auth.orgs.invitations(org.id)).to.deep.equal([]);
    await refusal(t.auth.orgs.acceptInvitation(token, ada.id), 'invalid_invitation');
    await refusal(t.auth.orgs.invite(org.id, { email: ada.email, roles: ['member'] }), 'already_member');
  });

  it('refuses another account, and the invited address unconfirmed (403 invitation_email_mismatch), keeping the invitation', async () => {
    const { org } = await orgWithOwner('Particular');
    const [ada, eve] = [await newUser(t, 'ada'), await newUser(t, 'eve')];
    await t.auth.orgs.invite(org.id, { email: ada.email, roles: ['member'] });
    const token = tokenMailedTo(ada.email);
    await refusal(t.auth.orgs.acceptInvitation(token, eve.id), 'invitation_email_mismatch');
    const em = (await t.parts.storage.em()).fork();
    await em.nativeUpdate(User, { id: ada.id }, { emailConfirmedAt: null });
    await refusal(t.auth.orgs.acceptInvitation(token, ada.id), 'invitation_email_mismatch');
    expect(await t.auth.orgs.membership(org.id, eve.id)).to.equal(null);
    expect(await t.auth.orgs.invitations(org.id)).to.have.length(1);
    await em.nativeUpdate(User, { id: ada.id }, { emailConfirmedAt: new Date() });
    expect((await t.auth.orgs.acceptInvitation(token, ada.email)).roles).to.deep.equal(['member']);
  });

  it('refuses an unknown, revoked, replaced or expired token (400 invalid_invitation)', async () => {
    const { org } = await orgWithOwner('Expiring');
    const ada = await newUser(t, 'ada');
    await refusal(t.auth.orgs.acceptInvitation('no-such-token', ada.id), 'invalid_invitation');

    const first = await t.auth.orgs.invite(org.id, { email: ada.email, roles: ['viewer'] });
    const replaced = tokenMailedTo(ada.email);
    await t.auth.orgs.invite(org.id, { email: ada.email, roles: ['member'] });
    const current = tokenMailedTo(ada.email);
    await refusal(t.auth.orgs.acceptInvitation(replaced, ada.id), 'invalid_invitation');
    expect((await t.auth.orgs.invitations(org.id)).map((i) => [i.email, i.roles])).to.deep.equal([
      [ada.email, ['member']],
    ]);
    await refusal(t.auth.orgs.revokeInvitation(org.id, first.id), 'not_found');

    const [pending] = await t.auth.orgs.invitations(org.id);
    for (const id of ['x', '1.5', -1, pending!.id + 1000])
      await refusal(t.auth.orgs.revokeInvitation(org.id, id), 'not_found');
    await t.auth.orgs.revokeInvitation(org.slug, String(pending!.id));
    await refusal(t.auth.orgs.acceptInvitation(current, ada.id), 'invalid_invitation');

    await t.auth.orgs.invite(org.id, { email: ada.email, roles: ['member'] });
    const expired = tokenMailedTo(ada.email);
    await (
      await t.parts.storage.em()
    )
      .fork()
      .nativeUpdate(Invitation, { tokenHash: sha256Hex(expired) }, { expiresAt: new Date(Date.now() - 1000) });
    await refusal(t.auth.orgs.acceptInvitation(expired, ada.id), 'invalid_invitation');
    expect(await t.auth.orgs.invitations(org.id)).to.deep.equal([]);
    expect(await t.auth.orgs.membership(org.id, ada.id)).to.equal(null);
  });

  it('shows a pending invitation by its token (organization, address, roles) without accepting it; null once it no longer works', async () => {
    const { org } = await orgWithOwner('Readable');
    const ada = await newUser(t, 'ada');
    expect(await t.auth.orgs.pendingInvitation('no-such-token')).to.equal(null);

    const first = await t.auth.orgs.invite(org.id, { email: ada.email.toUpperCase(), roles: ['viewer', 'member'] });
    const token = tokenMailedTo(ada.email);
    const shown = { org, email: ada.email, roles: ['member', 'viewer'] };
    expect(await t.auth.orgs.pendingInvitation(token)).to.deep.equal(shown);
    expect(await t.auth.orgs.pendingInvitation(token)).to.deep.equal(shown);
    expect(await t.auth.orgs.invitations(org.id)).to.deep.equal([first]);
    expect(await t.auth.orgs.membership(org.id, ada.id)).to.equal(null);

    await t.auth.orgs.invite(org.id, { email: ada.email, roles: ['member'] });
    const current = tokenMailedTo(ada.email);
    expect(await t.auth.orgs.pendingInvitation(token), 'replaced').to.equal(null);
    await t.auth.orgs.revokeInvitation(org.id, (await t.auth.orgs.invitations(org.id))[0]!.id);
    expect(await t.auth.orgs.pendingInvitation(current), 'revoked').to.equal(null);

    await t.auth.orgs.invite(org.id, { email: ada.email, roles: ['member'] });
    const expiring = tokenMailedTo(ada.email);
    await (
      await t.parts.storage.em()
    )
      .fork()
      .nativeUpdate(Invitation, { tokenHash: sha256Hex(expiring) }, { expiresAt: new Date(Date.now() - 1000) });
    expect(await t.auth.orgs.pendingInvitation(expiring), 'expired').to.equal(null);

    await t.auth.orgs.invite(org.id, { email: ada.email, roles: ['admin'] });
    const accepted = tokenMailedTo(ada.email);
    expect(await t.auth.orgs.pendingInvitation(accepted)).to.deep.equal({ org, email: ada.email, roles: ['admin'] });
    await t.auth.orgs.acceptInvitation(accepted, ada.id);
    expect(await t.auth.orgs.pendingInvitation(accepted), 'used').to.equal(null);
  });

  it('answers and mails the same whether or not the address has an account', async () => {
    const { org } = await orgWithOwner('Discreet');
    const ada = await newUser(t, 'ada');
    const sent = mails.length;
    const withAccount = await t.auth.orgs.invite(org.id, { email: ada.email, roles: ['member'] });
    const without = await t.auth.orgs.invite(org.id, { email: 'no-account@example.com', roles: ['member'] });
    const shape = (invitation: typeof without) => ({ ...invitation, id: 0, email: '', created_at: '', expires_at: '' });
    expect(shape(withAccount)).to.deep.equal(shape(without));
    const [a, b] = mails.slice(sent).map((mail) => ({
      ...mail,
      to: '',
      text: mail.text.replace(/token=\S+/, ''),
      html: mail.html?.replace(/token=[^"]+/g, ''),
    }));
    expect(a).to.deep.equal(b);
  });

  it('refuses malformed input (422 invalid_email, 400 bad_request, 422 unknown_role) and an unknown organization (404), writing nothing', async () => {
    const { org } = await orgWithOwner('Careful');
    const sent = mails.length;
    await refusal(t.auth.orgs.invite(org.id, { email: 'not an address', roles: ['member'] }), 'invalid_email');
    await refusal(t.auth.orgs.invite(org.id, { email: 'a@example.com', roles: [] }), 'bad_request');
    await refusal(t.auth.orgs.invite(org.id, { email: 'a@example.com', roles: ['overlord'] }), 'unknown_role');
    await refusal(t.auth.orgs.invite('no-such-org', { email: 'a@example.com', roles: ['member'] }), 'not_found');
    await refusal(t.auth.orgs.invitations('no-such-org'), 'not_found');
    expect(await t.auth.orgs.invitations(org.id)).to.deep.equal([]);
    expect(mails.length).to.equal(sent);
  });

  it('hands each organization event the acting user (null if none) and { org, member?, roles? }, and records each', async () => {
    const seen: [string, number | null, OrgEventDetail][] = [];
    const names = [
      'org_created',
      'org_deleted',
      'member_added',
      'member_removed',
      'member_roles_changed',
      'invitation_created',
      'invitation_accepted',
    ] as const;
    const stops = names.map((name) =>
      t.auth.on(name, (actor, detail) => void seen.push([name, actor?.id ?? null, detail])),
    );
    const boom = t.auth.on('member_added', () => {
      throw new Error('a handler that fails');
    });
    try {
      const [owner, bob, cy] = [await newUser(t, 'owner'), await newUser(t, 'bob'), await newUser(t, 'cy')];
      const org = await t.auth.orgs.create({ name: 'Eventful', owner: owner.id }, owner.id);
      await t.auth.orgs.addMember(org.id, bob.id, ['member'], owner);
      await t.auth.orgs.setMemberRoles(org.id, bob.id, ['admin'], owner.id);
      await t.auth.orgs.invite(org.id, { email: cy.email, roles: ['viewer'] }, bob.id);
      await t.auth.orgs.acceptInvitation(tokenMailedTo(cy.email), cy.id);
      await t.auth.orgs.removeMember(org.id, bob.id);
      await t.auth.orgs.delete(org.id, owner.id);

      const member = (user: { id: number; email: string }) => ({ user_id: user.id, email: user.email });
      expect(seen).to.deep.equal([
        ['org_created', owner.id, { org, member: member(owner), roles: ['owner'] }],
        ['member_added', owner.id, { org, member: member(bob), roles: ['member'] }],
        ['member_roles_changed', owner.id, { org, member: member(bob), roles: ['admin'] }],
        ['invitation_created', bob.id, { org, member: { user_id: null, email: cy.email }, roles: ['viewer'] }],
        ['member_added', cy.id, { org, member: member(cy), roles: ['viewer'] }],
        ['invitation_accepted', cy.id, { org, member: member(cy), roles: ['viewer'] }],
        ['member_removed', null, { org, member: member(bob), roles: ['admin'] }],
        ['org_deleted', owner.id, { org }],
      ]);
      expect(t.log.text()).to.contain('a member_added handler failed');

      const records = (
        await t.auth.audit.query({ since: new Date(Date.parse(org.created_at) - 1000), limit: 100 })
      ).reverse();
      const ours = records
        .filter((r) => r.detail['org_id'] === org.id)
        .map((r) => [r.type, r.userId, r.detail['by'] ?? null]);
      expect(ours).to.deep.equal([
        ['org_created', owner.id, owner.id],
        ['member_added', bob.id, owner.id],
        ['member_roles_changed', bob.id, owner.id],
        ['invitation_created', null, bob.id],
        ['member_added', cy.id, cy.id],
        ['invitation_accepted', cy.id, null],
        ['member_removed', bob.id, null],
        ['org_deleted', owner.id, owner.id],
      ]);
    } finally {
      for (const stop of stops) stop();
      boom();
    }
  });
});
