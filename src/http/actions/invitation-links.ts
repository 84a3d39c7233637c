/**
 * What the invitation link's page shows before anyone accepts (`GET /invitations/accept`): the
 * organization, the address and the roles of a pending invitation, found by the SHA-256 of the
 * link's token as `auth.orgs` stores it. Reading only: opening a link changes nothing, and the
 * answer is the same for a token unknown, used, revoked or expired (null).
 */
import { sha256Hex } from '../../secrets.js';
import { Invitation } from '../../storage/entities/index.js';
import type { Storage } from '../../storage/storage.js';
import type { OrgView } from '../schemas/org-responses.js';

export interface PendingInvitation {
  org: OrgView;
  /** As stored: trimmed and lower-cased, as users' addresses are. */
  email: string;
  roles: string[];
}

export class InvitationLinks {
  constructor(private readonly storage: Pick<Storage, 'em'>) {}

  async pending(token: string): Promise<PendingInvitation | null> {
    const em = await this.storage.em();
    const now = new Date();
    const found = await em.findOne(
      Invitation,
      { tokenHash: sha256Hex(token), acceptedAt: null, revokedAt: null, expiresAt: { $gt: now } },
      { populate: ['org'], disableIdentityMap: true },
    );
    if (!found) return null;
    const { org } = found;
    return {
      org: { id: org.id, slug: org.slug, name: org.name, created_at: org.createdAt.toISOString() },
      email: found.email,
      roles: [...found.roles],
    };
  }
}
