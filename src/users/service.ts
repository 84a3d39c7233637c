/**
 * `auth.users`: creating, finding and changing users. The HTTP API and the CLI both go through
 * here, so the email and password rules hold the same way everywhere. The users table is written
 * in this room only (here, in account-states.ts, deletion.ts, email-changes.ts and by role
 * deletion), each change dropping the user's cached copy (user-cache.ts) at once.
 */
import type { AuditLog } from '../audit/audit-log.js';
import type { PasswordHasher } from '../passwords/hashing.js';
import { User } from '../storage/entities/index.js';
import type { Storage } from '../storage/storage.js';
import type { UserRef } from '../storage/user-ref.js';
import type { EventBus } from '../events.js';
import type { AccountStates } from './account-states.js';
import { protectAdminAccount, type Operator } from './admin-accounts.js';
import type { AuthUser } from './auth-user.js';
import type { AccountDeletion } from './deletion.js';
import { NO_PASSWORD_HASH, type CreationRecord, type NewUser, type UserCreation } from './creation.js';
import { listUsers, searchUsers, toAuthUser, type UserLookup, type UserSearch } from './lookup.js';
import type { PasswordChanges } from './password-changes.js';
import { addRole, removeRole } from './role-grants.js';
import type { UserCache } from './user-cache.js';

export interface UserServiceDeps {
  storage: Storage;
  audit: AuditLog;
  hasher: PasswordHasher;
  lookup: UserLookup;
  passwords: PasswordChanges;
  creation: UserCreation;
  cache: UserCache;
  states: AccountStates;
  deletion: AccountDeletion;
  events: EventBus;
  /** SERVICE_AUTH_REVOKE_TOKENS_ON_PASSWORD_RESET: a password set for the user ends their tokens too. */
  revokeTokensOnReset: boolean;
}

export class UserService {
  constructor(private readonly deps: UserServiceDeps) {}

  /** Validates everything first (422 invalid_email, 422 password_rules), then writes in one transaction. */
  create(input: NewUser, recordAs?: CreationRecord): Promise<AuthUser> {
    return this.deps.creation.create(input, recordAs);
  }

  /** The user, or a 404 `not_found` naming what was looked for. */
  get(ref: UserRef): Promise<AuthUser> {
    return this.deps.lookup.get(ref);
  }

  findById(id: number): Promise<AuthUser | null> {
    return this.deps.lookup.find(id);
  }

  findByEmail(email: string): Promise<AuthUser | null> {
    return this.deps.lookup.find(String(email));
  }

  /** Every user, oldest first. */
  list(): Promise<AuthUser[]> {
    return listUsers(this.deps.storage);
  }

  /** One page of users, oldest first, whose address contains `email` if given (the admin console's list). */
  search(query: UserSearch): Promise<AuthUser[]> {
    return searchUsers(this.deps.storage, query);
  }

  /**
   * Sets a new password as an operator would: the rules apply, pending reset links stop working,
   * every session of the user ends, and so do their tokens unless
   * SERVICE_AUTH_REVOKE_TOKENS_ON_PASSWORD_RESET is false. No event (`auth.resetPassword` fires one).
   */
  async setPassword(ref: UserRef, password: string): Promise<AuthUser> {
    const { storage, lookup, passwords, revokeTokensOnReset } = this.deps;
    const passwordHash = await passwords.hash(password);
    const user = await lookup.get(ref);
    const em = await storage.em();
    await storage.transaction(em, async (tx) => {
      await passwords.replace(tx, user.id, passwordHash, { revokeTokens: revokeTokensOnReset });
      this.deps.audit.record(tx, {
        type: 'password_reset_completed',
        userId: user.id,
        email: user.email,
        detail: { tokens_revoked: revokeTokensOnReset },
      });
    });
    return user;
  }

  /**
   * The user's own change, with the current password checked by the caller: the rules apply,
   * every session ends (the caller starts the user a new one), pending reset links stop working,
   * tokens stay; `password_changed` fires.
   */
  async changePassword(ref: UserRef, password: string): Promise<AuthUser> {
    const { storage, lookup, passwords, events } = this.deps;
    const passwordHash = await passwords.hash(password);
    const user = await lookup.get(ref);
    const em = await storage.em();
    await storage.transaction(em, async (tx) => {
      await passwords.replace(tx, user.id, passwordHash, { revokeTokens: false });
      this.deps.audit.record(tx, { type: 'password_changed', userId: user.id, email: user.email });
    });
    await events.emit('password_changed', user);
    return user;
  }

  /**
   * Disables the account: its sessions end, its tokens are refused until it is enabled. Event
   * `user_disabled`. With the `operator` making the change, an `is_admin` account is disabled
   * only by an `is_admin` operator (403 `forbidden`: admin-accounts.ts).
   */
  async disable(ref: UserRef, operator?: Operator): Promise<AuthUser> {
    if (operator) protectAdminAccount(operator, await this.deps.lookup.get(ref), 'disable');
    return this.deps.states.disable(ref);
  }

  /** Enables a disabled account; its tokens work again. Event `user_enabled`. */
  enable(ref: UserRef): Promise<AuthUser> {
    return this.deps.states.enable(ref);
  }

  /** Marks the address confirmed, as an operator vouching for it. Event `email_confirmed`. */
  confirmEmail(ref: UserRef): Promise<AuthUser> {
    return this.deps.states.confirmEmail(ref);
  }

  /** Deletes the user and everything of theirs, in one transaction. Event `user_deleted`. */
  delete(ref: UserRef): Promise<AuthUser> {
    return this.deps.deletion.delete(ref);
  }

  async setAdmin(ref: UserRef, isAdmin: boolean): Promise<AuthUser> {
    const em = await this.deps.storage.em();
    const user = await this.deps.lookup.require(em, ref);
    await this.deps.storage.transaction(em, async (tx) => {
      if (user.isAdmin === isAdmin) return;
      user.isAdmin = isAdmin;
      await this.deps.storage.changes.note(tx.em, [user.id]);
      // The administrator flag is the role that passes every check: recorded as one.
      this.deps.audit.record(tx, {
        type: isAdmin ? 'role_added' : 'role_removed',
        userId: user.id,
        email: user.email,
        detail: { role: 'admin' },
      });
    });
    this.forget([user.id]);
    return toAuthUser(user);
  }

  /** Gives the user a role, creating the role if it does not exist. */
  async addRole(ref: UserRef, roleName: string): Promise<AuthUser> {
    const user = await addRole(this.deps, ref, roleName);
    this.forget([user.id]);
    return user;
  }

  /**
   * Takes a role away; a user without it, or an unknown role, is a 404 `not_found`. With the
   * `operator` making the change, an `is_admin` account loses a role only to an `is_admin`
   * operator (403 `forbidden`: admin-accounts.ts).
   */
  async removeRole(ref: UserRef, roleName: string, operator?: Operator): Promise<AuthUser> {
    const user = await removeRole(this.deps, ref, roleName, operator);
    this.forget([user.id]);
    return user;
  }

  /**
   * The user with this email and password, or null. An unknown email costs the same hashing work
   * as a wrong password, so response times do not tell which emails have accounts. A hash made
   * with weaker parameters than today's is replaced after a successful check.
   *
   * The password only: a disabled, unconfirmed or second-factor user is answered too. A login
   * built on this must check `disabled`, `email_confirmed` and `mfa_enabled` itself.
   */
  async authenticate(email: string, password: string): Promise<AuthUser | null> {
    return (await this.check(email, password)).user;
  }

  /** @internal `authenticate`, also naming the account a wrong password was tried on (for its audit record). */
  async check(
    email: string,
    password: string,
  ): Promise<{ user: AuthUser; triedOn: number } | { user: null; triedOn: number | null }> {
    const { storage, lookup, hasher } = this.deps;
    const em = await storage.em();
    const user = await lookup.load(em, email);
    if (!user) {
      await hasher.verifyNothing(password);
      return { user: null, triedOn: null };
    }
    if (user.passwordHash === NO_PASSWORD_HASH) {
      // An account made through an identity provider: the same work as for any wrong password.
      await hasher.verifyNothing(password);
      return { user: null, triedOn: user.id };
    }
    if (!(await hasher.verify(user.passwordHash, password))) return { user: null, triedOn: user.id };
    if (hasher.needsRehash(user.passwordHash)) {
      const passwordHash = await hasher.hash(password);
      await em.nativeUpdate(User, { id: user.id, passwordHash: user.passwordHash }, { passwordHash });
    }
    return { user: toAuthUser(user), triedOn: user.id };
  }

  /** A credential's user if held and fresh, without waiting (the guards' fast path). */
  peekCached(id: number): AuthUser | undefined {
    return this.deps.cache.peek(id);
  }

  /** A credential's user, from memory if fresh, else read; null if there is none. */
  cached(id: number): Promise<AuthUser | null> {
    return this.deps.cache.fetch(id);
  }

  /** Drops cached users after a change to them (their roles, say) made in this room. */
  forget(ids: Iterable<number>): void {
    this.deps.cache.forget(ids);
  }
}
