/**
 * Deleting an account: the user's memberships of organizations, sessions, tokens, reset and
 * confirmation links, role links and the user's row, in one transaction, each table by its owner (which drops what it cached once the
 * deletion commits). The address may register again at once.
 */
import type { AuditLog } from '../audit/audit-log.js';
import type { EventBus } from '../events.js';
import type { SessionStore } from '../sessions/store.js';
import { User, UserRole } from '../storage/entities/index.js';
import type { Storage, Transaction } from '../storage/storage.js';
import type { UserRef } from '../storage/user-ref.js';
import type { TokenService } from '../tokens/service.js';
import type { AuthUser } from './auth-user.js';
import type { EmailTokens } from './email-tokens.js';
import type { UserLookup } from './lookup.js';
import type { ResetTokens } from './reset-tokens.js';
import type { UserCache } from './user-cache.js';

export interface AccountDeletionDeps {
  storage: Storage;
  audit: AuditLog;
  lookup: UserLookup;
  cache: UserCache;
  sessions: SessionStore;
  tokens: TokenService;
  resetTokens: ResetTokens;
  emailTokens: EmailTokens;
  events: EventBus;
  /**
   * Ends the user's memberships (src/orgs/), refusing with 409 `last_owner` where they are the
   * last owner of an organization with other members: first, so that a refusal changes nothing.
   */
  leaveOrgs: (tx: Transaction, user: { id: number; email: string }) => Promise<void>;
}

export class AccountDeletion {
  constructor(private readonly deps: AccountDeletionDeps) {}

  /**
   * Deletes the user (a 404 `not_found` if there is none; 409 `last_owner` if they are the last
   * owner of an organization with other members); `user_deleted` fires with the user as it was.
   */
  async delete(ref: UserRef): Promise<AuthUser> {
    const { storage, lookup, cache, sessions, tokens, resetTokens, emailTokens, events } = this.deps;
    const user = await lookup.get(ref);
    const em = await storage.em();
    await storage.transaction(em, async (tx) => {
      await this.deps.leaveOrgs(tx, user);
      await sessions.endAllOf(tx, user.id);
      await tokens.deleteAllOf(tx, user.id);
      await resetTokens.deleteAllOf(tx, user.id);
      await emailTokens.deleteAllOf(tx, user.id);
      await tx.em.nativeDelete(UserRole, { user: user.id });
      await tx.em.nativeDelete(User, { id: user.id });
      this.deps.audit.record(tx, { type: 'user_deleted', userId: user.id, email: user.email });
      tx.afterCommit(() => cache.forget([user.id]));
    });
    await events.emit('user_deleted', user);
    return user;
  }
}
