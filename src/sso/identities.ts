/**
 * The identities linked to users (`service_auth_identities`): one (provider, subject) belongs to
 * one user at most (a unique index decides races). Linking and unlinking are recorded in the
 * audit log with the provider; an identity may not be unlinked while it is the account's only
 * way in (409 `last_sign_in_method`).
 */
import { UniqueConstraintViolationException } from '@mikro-orm/core';
import type { AuditLog } from '../audit/audit-log.js';
import { AuthError } from '../errors.js';
import { Identity } from '../storage/entities/index.js';
import type { Storage } from '../storage/storage.js';

/** An identity as `GET /api/identities` lists it. */
export interface IdentityView {
  id: number;
  provider: string;
  subject: string;
  email: string | null;
  created_at: string;
}

export interface IdentityDeps {
  storage: Storage;
  audit: AuditLog;
  /** Whether the user has a way in besides their identities: a password or a passkey. */
  hasOtherWayIn(userId: number): Promise<boolean>;
}

export class Identities {
  constructor(private readonly deps: IdentityDeps) {}

  /** The user the identity is linked to, or null. */
  async userOf(provider: string, subject: string): Promise<number | null> {
    const row = await (await this.deps.storage.em()).fork().findOne(Identity, { provider, subject });
    return row ? row.user.id : null;
  }

  async list(userId: number): Promise<IdentityView[]> {
    const rows = await (
      await this.deps.storage.em()
    )
      .fork()
      .find(Identity, { user: userId }, { orderBy: { id: 'asc' } });
    return rows.map(view);
  }

  /**
   * Links the identity to the user; false if it already was. 409 `identity_in_use` if it is
   * another user's: it signs that user in, and moving it would hand their account over.
   */
  async link(userId: number, identity: { provider: string; subject: string; email: string | null }): Promise<boolean> {
    const { storage, audit } = this.deps;
    const owner = await this.userOf(identity.provider, identity.subject);
    if (owner === userId) return false;
    if (owner !== null) throw identityInUse();
    try {
      await storage.transaction(await storage.em(), async (tx) => {
        await tx.em.insert(Identity, {
          user: userId,
          provider: identity.provider,
          subject: identity.subject,
          email: identity.email,
          createdAt: new Date(),
        });
        audit.record(tx, {
          type: 'identity_linked',
          userId,
          email: identity.email,
          detail: { provider: identity.provider },
        });
      });
    } catch (error) {
      if (error instanceof UniqueConstraintViolationException) throw identityInUse();
      throw error;
    }
    return true;
  }

  /**
   * Unlinks one of the user's identities (404 `not_found` for another's, like an unknown one),
   * unless it is their last way in: no password, no passkey, no other identity.
   */
  async unlink(userId: number, id: number): Promise<IdentityView> {
    const { storage, audit, hasOtherWayIn } = this.deps;
    const em = (await storage.em()).fork();
    const row = Number.isSafeInteger(id) ? await em.findOne(Identity, { id, user: userId }) : null;
    if (!row) throw new AuthError('not_found', 'You have no identity with this id');
    const others = await em.count(Identity, { user: userId, id: { $ne: id } });
    if (others === 0 && !(await hasOtherWayIn(userId))) {
      throw new AuthError(
        'last_sign_in_method',
        'This identity is your only way to sign in: set a password (or add a passkey or another provider) first',
      );
    }
    await storage.transaction(em, async (tx) => {
      if ((await tx.em.nativeDelete(Identity, { id, user: userId })) === 0)
        throw new AuthError('not_found', 'You have no identity with this id');
      audit.record(tx, {
        type: 'identity_unlinked',
        userId,
        email: row.email ?? null,
        detail: { provider: row.provider },
      });
    });
    return view(row);
  }
}

function view(row: Identity): IdentityView {
  return {
    id: row.id,
    provider: row.provider,
    subject: row.subject,
    email: row.email ?? null,
    created_at: row.createdAt.toISOString(),
  };
}

function identityInUse(): AuthError {
  return new AuthError('identity_in_use', 'This identity is linked to another account');
}
