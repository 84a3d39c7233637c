/**
 * What every password change does, whichever way it comes (a reset link, an operator, the CLI,
 * `auth.users.setPassword`): the rules, the hash, and in one transaction the new hash, pending
 * reset links and login tickets (the old password's) made useless, the user's sessions ended and,
 * when asked, their tokens revoked. Each
 * of those tables is written by its owner, which also drops what it cached once the change commits.
 */
import type { PasswordPolicy } from '../config/config.js';
import type { LoginTickets } from '../mfa/login-tickets.js';
import type { PasswordHasher } from '../passwords/hashing.js';
import { assertPasswordRules } from '../passwords/rules.js';
import type { SessionStore } from '../sessions/store.js';
import { User } from '../storage/entities/index.js';
import type { Transaction } from '../storage/storage.js';
import type { TokenService } from '../tokens/service.js';
import type { ResetTokens } from './reset-tokens.js';

export interface CredentialOwners {
  sessions: SessionStore;
  tokens: TokenService;
  resetTokens: ResetTokens;
  loginTickets: LoginTickets;
}

export interface ReplaceOptions {
  /** Revoke the user's API tokens too. */
  revokeTokens: boolean;
  /** The raw id of a session to keep (the one that changed its own password). */
  keepSession?: string;
}

export class PasswordChanges {
  constructor(
    private readonly hasher: PasswordHasher,
    private readonly policy: PasswordPolicy,
    private readonly owners: CredentialOwners,
  ) {}

  /** Throws a PasswordRulesError (every failed rule) or a ValidationError (ill-formed text). */
  assertRules(password: string): void {
    assertPasswordRules(password, this.policy);
  }

  /** The rules, then the hash: the slow part, done before any transaction opens. */
  async hash(password: string): Promise<string> {
    this.assertRules(password);
    return this.hasher.hash(password);
  }

  /** Inside the caller's transaction: the new hash and everything a password change ends. */
  async replace(tx: Transaction, userId: number, passwordHash: string, options: ReplaceOptions): Promise<void> {
    const { sessions, tokens, resetTokens, loginTickets } = this.owners;
    await tx.em.nativeUpdate(User, { id: userId }, { passwordHash, updatedAt: new Date() });
    await resetTokens.cancelAllOf(tx, userId);
    await loginTickets.endAllOf(tx, userId);
    await sessions.endAllOf(tx, userId, options.keepSession === undefined ? {} : { except: options.keepSession });
    if (options.revokeTokens) await tokens.revokeAllOf(tx, userId);
  }
}
