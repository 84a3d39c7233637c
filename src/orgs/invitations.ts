/**
 * Invitations to an organization (docs/organizations.md): a link mailed to an address, valid
 * SERVICE_AUTH_INVITATION_TTL, whose token is stored as its SHA-256 and works once. Accepting it
 * needs a user whose confirmed address is the invitation's. Nothing tells whether the address has
 * an account: the answer and the mail are the same either way.
 */
import type { LoggerHolder } from '../logger.js';
import { AuthError } from '../errors.js';
import { deliver } from '../mail/deliver.js';
import { invitationMail } from '../mail/messages.js';
import type { MailHolder } from '../mail/transport.js';
import { randomSecret, sha256Hex } from '../secrets.js';
import { Invitation, Membership } from '../storage/entities/index.js';
import type { UserRef } from '../storage/user-ref.js';
import { validEmail } from '../users/emails.js';
import type { AccountLinks } from '../users/links.js';
import { actorId, emitOrgEvent, lockedOrg, requireOrg, type OrgDeps } from './context.js';
import type { Members } from './members.js';
import { validOrgRoles } from './names.js';
import {
  toInvitationInfo,
  toOrgInfo,
  type InvitationInfo,
  type OrgActor,
  type OrgInfo,
  type OrgRef,
  type PendingInvitation,
} from './views.js';

/** What `auth.orgs.invite` takes. */
export interface NewInvitation {
  email: string;
  roles: string[];
}

export interface InvitationDeps extends OrgDeps {
  members: Members;
  links: AccountLinks;
  mail: MailHolder;
  log: LoggerHolder;
}

export class Invitations {
  constructor(private readonly deps: InvitationDeps) {}

  /**
   * Invites the address with these roles and mails it the link; a pending invitation of the same
   * address to the organization is replaced. 422 `invalid_email`, 400 `bad_request` or 422
   * `unknown_role` for the input; 409 `already_member` if a member has this address.
   */
  async invite(ref: OrgRef, input: NewInvitation, actor?: OrgActor): Promise<InvitationInfo> {
    const email = validEmail(String(input?.email ?? ''));
    const roles = validOrgRoles(input.roles, this.deps.knownOrgRole);
    const { storage, audit, settings } = this.deps;
    const token = randomSecret();
    const em = await storage.em();
    const { org, invitation } = await storage.transaction(em, async (tx) => {
      const org = await lockedOrg(tx.em, ref);
      if (await tx.em.count(Membership, { org: org.id, user: { email } }))
        throw new AuthError('already_member', `${email} is a member of ${org.slug} already`);
      const now = new Date();
      await tx.em.nativeUpdate(Invitation, { org: org.id, email, ...pending(now) }, { revokedAt: now });
      const by = actorId(actor);
      const expiresAt = new Date(now.getTime() + settings.invitationTtlSeconds * 1000);
      const invitation = tx.em.create(Invitation, {
        org,
        email,
        roles,
        tokenHash: sha256Hex(token),
        invitedBy: by,
        createdAt: now,
        expiresAt,
      });
      await tx.em.flush();
      audit.record(tx, {
        type: 'invitation_created',
        email,
        detail: { org_id: org.id, org: org.slug, invitation: invitation.id, roles: roles.join(' '), by },
      });
      return { org: toOrgInfo(org), invitation: toInvitationInfo(invitation) };
    });
    const link = this.deps.links.to('/invitations/accept', token);
    await deliver(this.deps.mail, this.deps.log, invitationMail(email, org.name, link, settings.invitationTtlSeconds));
    await emitOrgEvent(this.deps, 'invitation_created', actor, { org, member: { user_id: null, email }, roles });
    return invitation;
  }

  /** The pending invitations (neither accepted, revoked nor expired), oldest first. */
  async list(ref: OrgRef): Promise<InvitationInfo[]> {
    const em = await this.deps.storage.em();
    const org = await requireOrg(em, ref);
    const rows = await em.find(
      Invitation,
      { org: org.id, ...pending(new Date()) },
      { orderBy: { createdAt: 'asc', id: 'asc' } },
    );
    return rows.map(toInvitationInfo);
  }

  /** Revokes a pending invitation: its link stops working (a 404 `not_found` if there is none such). */
  async revoke(ref: OrgRef, id: number | string, actor?: OrgActor): Promise<void> {
    // A URL's `:id` arrives as a string of digits.
    const invitationId = typeof id === 'string' && /^[1-9][0-9]{0,14}$/.test(id) ? Number(id) : id;
    const { storage, audit } = this.deps;
    const em = await storage.em();
    await storage.transaction(em, async (tx) => {
      const org = await requireOrg(tx.em, ref);
      const now = new Date();
      const invitation = await tx.em.findOne(Invitation, {
        id: Number.isSafeInteger(invitationId) ? (invitationId as number) : 0,
        org: org.id,
        ...pending(now),
      });
      if (!invitation) throw new AuthError('not_found', `no pending invitation ${JSON.stringify(id)} to ${org.slug}`);
      invitation.revokedAt = now;
      audit.record(tx, {
        type: 'invitation_revoked',
        email: invitation.email,
        detail: { org_id: org.id, org: org.slug, invitation: invitation.id, by: actorId(actor) },
      });
    });
  }

  /**
   * The pending invitation whose link carries this token: its organization, address and roles, or
   * null for a token unknown, used, revoked or expired (the same answer for each). Reading only.
   */
  async pending(token: string): Promise<PendingInvitation | null> {
    const em = await this.deps.storage.em();
    const found = await em.findOne(
      Invitation,
      { tokenHash: sha256Hex(String(token)), ...pending(new Date()) },
      { populate: ['org'], disableIdentityMap: true },
    );
    return found ? { org: toOrgInfo(found.org), email: found.email, roles: [...found.roles] } : null;
  }

  /**
   * The user joins with the invitation's roles, and its token is used up. 400
   * `invalid_invitation` for a token unknown, used, revoked or expired; 403
   * `invitation_email_mismatch` unless the user's confirmed address is the invitation's; 409
   * `already_member` (the invitation stays usable). `stillGranted`, if given, is asked whether
   * the invitation may still grant its roles (the HTTP layer: may its inviter still assign them?).
   */
  async accept(
    token: string,
    userRef: UserRef,
    actor?: OrgActor,
    stillGranted?: GrantCheck,
  ): Promise<{ org: OrgInfo; roles: string[] }> {
    const { storage, audit, lookup, members } = this.deps;
    const em = await storage.em();
    const user = await lookup.require(em, userRef);
    const tokenHash = sha256Hex(String(token));
    const found = await em.findOne(Invitation, { tokenHash, ...pending(new Date()) }, { disableIdentityMap: true });
    if (!found) throw this.invalid(user.id);
    if (user.emailConfirmedAt == null || user.email !== found.email) {
      audit.fail({
        type: 'invitation_accepted',
        userId: user.id,
        email: user.email,
        reason: 'invitation_email_mismatch',
        detail: { invitation: found.id },
      });
      throw new AuthError(
        'invitation_email_mismatch',
        'This invitation is for another address: sign in with the account of the address it was ' +
          'sent to, its address confirmed',
      );
    }
    // Checked before the change's transaction: what it reads (the inviter's ability) is read through caches.
    if (
      stillGranted &&
      !(await stillGranted({
        orgId: found.org.id,
        email: found.email,
        roles: [...found.roles].sort(),
        invitedBy: found.invitedBy?.id ?? null,
      }))
    ) {
      throw this.invalid(user.id, 'inviter_may_not_assign');
    }
    const by = actor === undefined ? user : actor;
    const { org, roles } = await storage.transaction(em, async (tx) => {
      const org = await lockedOrg(tx.em, found.org.id);
      if (
        (await tx.em.nativeUpdate(Invitation, { id: found.id, ...pending(new Date()) }, { acceptedAt: new Date() })) !==
        1
      )
        throw this.invalid(user.id);
      const member = await members.join(tx, org, user, [...found.roles].sort(), by, { invitation: found.id });
      audit.record(tx, {
        type: 'invitation_accepted',
        userId: user.id,
        email: user.email,
        detail: { org_id: org.id, org: org.slug, invitation: found.id, roles: member.roles.join(' ') },
      });
      return { org: toOrgInfo(org), roles: member.roles };
    });
    const member = { user_id: user.id, email: user.email };
    await emitOrgEvent(this.deps, 'member_added', by, { org, member, roles });
    await emitOrgEvent(this.deps, 'invitation_accepted', by, { org, member, roles });
    return { org, roles };
  }

  /** A token that does not work: recorded, then refused. */
  private invalid(userId: number, reason = 'invalid_invitation'): AuthError {
    this.deps.audit.fail({ type: 'invitation_accepted', userId, reason });
    return new AuthError(
      'invalid_invitation',
      'This invitation is unknown, used, revoked or expired; ask for a new one',
    );
  }
}

/** What an invitation grants, and who made it (null: code or the CLI, which no ability limits). */
export interface InvitationGrant {
  orgId: number;
  email: string;
  roles: string[];
  invitedBy: number | null;
}

/**
 * Whether the invitation may still grant its roles, asked when it is accepted: false makes it
 * 400 `invalid_invitation`, as a revoked one is (its inviter may no longer assign them).
 */
export type GrantCheck = (grant: InvitationGrant) => Promise<boolean>;

/** Neither accepted, revoked nor expired at `now`. */
function pending(now: Date) {
  return { acceptedAt: null, revokedAt: null, expiresAt: { $gt: now } };
}
