/**
 * What an operator decides about an account: disabled or not, its address confirmed by hand.
 * Disabling ends the user's sessions (a person logs in again once enabled) and refuses their tokens
 * while it lasts (they work again once enabled): at once on this instance, whose cached copy of the
 * user is dropped, and within a second elsewhere, where it is read again.
 */
import type { AuditLog } from '../audit/audit-log.js';
import type { AuditType } from '../audit/records.js';
import type { EventBus, EventName } from '../events.js';
import type { SessionStore } from '../sessions/store.js';
import { User } from '../storage/entities/index.js';
import type { Storage } from '../storage/storage.js';
import type { UserRef } from '../storage/user-ref.js';
import type { AuthUser } from './auth-user.js';
import type { UserLookup } from './lookup.js';
import type { UserCache } from './user-cache.js';

export interface AccountStateDeps {
  storage: Storage;
  audit: AuditLog;
  lookup: UserLookup;
  cache: UserCache;
  sessions: SessionStore;
  events: EventBus;
}

export class AccountStates {
  constructor(private readonly deps: AccountStateDeps) {}

  /** Disables the account and ends its sessions; `user_disabled` fires if it was enabled. */
  async disable(ref: UserRef): Promise<AuthUser> {
    return this.change(ref, 'user_disabled', (user) => user.disabledAt == null, { disabledAt: new Date() }, true);
  }

  /** Enables the account again; `user_enabled` fires if it was disabled. */
  async enable(ref: UserRef): Promise<AuthUser> {
    return this.change(ref, 'user_enabled', (user) => user.disabledAt != null, { disabledAt: null }, false);
  }

  /** Marks the address confirmed (`auth confirm-email`); `email_confirmed` fires if it was not. */
  async confirmEmail(ref: UserRef): Promise<AuthUser> {
    return this.change(
      ref,
      'email_confirmed',
      (user) => user.emailConfirmedAt == null,
      { emailConfirmedAt: new Date() },
      false,
    );
  }

  /**
   * Writes `values` if `applies` to the row as read, in one transaction with the sessions' end when
   * asked; the event fires after the commit, only for a change. A user already in that state is
   * returned as is.
   */
  private async change(
    ref: UserRef,
    event: EventName & AuditType,
    applies: (user: User) => boolean,
    values: Partial<Pick<User, 'disabledAt' | 'emailConfirmedAt'>>,
    endSessions: boolean,
  ): Promise<AuthUser> {
    const { storage, lookup, cache, sessions, events } = this.deps;
    const em = await storage.em();
    const row = await lookup.require(em, ref);
    if (!applies(row)) return lookup.get(row.id);
    await storage.transaction(em, async (tx) => {
      await tx.em.nativeUpdate(User, { id: row.id }, { ...values, updatedAt: new Date() });
      await storage.changes.note(tx.em, [row.id]);
      if (endSessions) await sessions.endAllOf(tx, row.id);
      this.deps.audit.record(tx, { type: event, userId: row.id, email: row.email });
    });
    cache.forget([row.id]);
    const user = await lookup.get(row.id);
    await events.emit(event, user);
    return user;
  }
}
