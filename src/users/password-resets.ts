/**
 * Forgotten passwords (CONTRACT section 6b). The reset token is 32 random bytes mailed as a link
 * to SERVICE_AUTH_PUBLIC_URL, never to the request's Host (a forged Host would otherwise send the
 * victim a link to the attacker's site). Only its SHA-256 is stored; it is single use, expires,
 * and a newer request or any password change makes older ones useless.
 */
import { LockMode } from '@mikro-orm/core';
import type { AuthConfig } from '../config.js';
import { AuthError } from '../errors.js';
import type { EventBus } from '../events.js';
import type { Logger } from '../logger.js';
import { passwordResetMail } from '../mail/messages.js';
import type { MailTransport } from '../mail/transport.js';
import type { PasswordHasher } from '../passwords/hashing.js';
import { assertPasswordRules } from '../passwords/rules.js';
import { randomSecret, sha256Hex } from '../secrets.js';
import { ApiToken, PasswordReset, Session, User } from '../storage/entities/index.js';
import type { EntityManager } from '../storage/orm.js';
import type { Storage } from '../storage/storage.js';
import type { AuthUser } from './auth-user.js';
import { validEmail } from './emails.js';
import type { UserRef, UserService } from './service.js';

export interface PasswordResetDeps {
  config: AuthConfig;
  storage: Storage;
  users: UserService;
  hasher: PasswordHasher;
  mail: MailTransport;
  events: EventBus;
  logger: Logger;
  /** Called after a user's sessions (and perhaps tokens) were ended, to drop cached copies. */
  credentialsRevoked: (userId: number) => void;
}

export class PasswordResets {
  /** Mails on their way; `close()` waits for them. */
  private readonly sending = new Set<Promise<void>>();

  constructor(private readonly deps: PasswordResetDeps) {}

  /**
   * Starts a reset for the account with this email, if there is one. The caller answers the same
   * either way; the mail goes out in the background so that its latency does not tell either.
   */
  async request(email: string): Promise<void> {
    const { config, storage, users, events } = this.deps;
    const user = await users.findByEmail(validEmail(email));
    if (!user) return;

    const token = randomSecret();
    const em = await storage.em();
    await storage.transaction(em, async (tx) => {
      // Locks the user's row, so that of two requests at once the later one's delete sees the
      // earlier one's token (PostgreSQL would otherwise let both tokens live).
      await tx.findOne(User, { id: user.id }, { lockMode: LockMode.PESSIMISTIC_WRITE });
      await tx.nativeDelete(PasswordReset, { user: user.id, usedAt: null });
      tx.create(PasswordReset, {
        tokenHash: sha256Hex(token),
        user: user.id,
        expiresAt: new Date(Date.now() + config.resetTokenTtlSeconds * 1000),
      });
    });

    const link = `${config.publicUrl}${config.urlPrefix}/reset?token=${encodeURIComponent(token)}`;
    this.sendInBackground(passwordResetMail(user.email, link, config.resetTokenTtlSeconds));
    await events.emit('password_reset_requested', user);
  }

  /** Whether a reset token is current, for the reset page to say so before the user types. */
  async isUsable(token: string): Promise<boolean> {
    const em = await this.deps.storage.em();
    return (await em.count(PasswordReset, usable(sha256Hex(token)))) === 1;
  }

  /**
   * Completes a reset: checks the token, then the password rules (a 422 leaves the token
   * usable), then, in one transaction, uses up the token, sets the password and ends the user's
   * sessions (and tokens, per SERVICE_AUTH_REVOKE_TOKENS_ON_PASSWORD_RESET).
   */
  async complete(token: string, password: string): Promise<AuthUser> {
    const { storage, hasher, config } = this.deps;
    const tokenHash = sha256Hex(token);
    const em = await storage.em();
    const reset = await em.findOne(PasswordReset, usable(tokenHash));
    if (!reset) throw invalidResetToken();
    assertPasswordRules(password, config.passwords);
    const passwordHash = await hasher.hash(password);

    const userId = reset.user.id;
    await storage.transaction(em, async (tx) => {
      // The conditional update is the lock: of two requests racing with one token, one changes
      // the row and the other finds nothing left to change.
      const consumed = await tx.nativeUpdate(PasswordReset, usable(tokenHash), { usedAt: new Date() });
      if (consumed !== 1) throw invalidResetToken();
      await this.replacePassword(tx, userId, passwordHash);
    });
    return this.completed(userId);
  }

  /**
   * Sets a password without a token, for operators (`auth reset-password`): the same effects as a
   * completed reset, event included.
   */
  async resetPassword(ref: UserRef, password: string): Promise<AuthUser> {
    const { storage, hasher, config, users } = this.deps;
    assertPasswordRules(password, config.passwords);
    const user = await users.get(ref);
    const passwordHash = await hasher.hash(password);
    const em = await storage.em();
    await storage.transaction(em, (tx) => this.replacePassword(tx, user.id, passwordHash));
    return this.completed(user.id);
  }

  /** Waits for mails still being sent. */
  async flush(): Promise<void> {
    await Promise.all(this.sending);
  }

  private async replacePassword(tx: EntityManager, userId: number, passwordHash: string): Promise<void> {
    const now = new Date();
    await tx.nativeUpdate(User, { id: userId }, { passwordHash, updatedAt: now });
    await tx.nativeDelete(PasswordReset, { user: userId, usedAt: null });
    await tx.nativeDelete(Session, { user: userId });
    if (this.deps.config.tokens.revokeOnPasswordReset) {
      await tx.nativeUpdate(ApiToken, { user: userId, revokedAt: null }, { revokedAt: now });
    }
  }

  private async completed(userId: number): Promise<AuthUser> {
    this.deps.credentialsRevoked(userId);
    const user = await this.deps.users.get(userId);
    await this.deps.events.emit('password_reset_completed', user);
    return user;
  }

  private sendInBackground(mail: Parameters<MailTransport['send']>[0]): void {
    const sending = this.deps.mail
      .send(mail)
      .catch((error: unknown) => this.deps.logger.error(`could not send "${mail.subject}" to ${mail.to}`, error))
      .finally(() => this.sending.delete(sending));
    this.sending.add(sending);
  }
}

function usable(tokenHash: string) {
  return { tokenHash, usedAt: null, expiresAt: { $gt: new Date() } };
}

function invalidResetToken(): AuthError {
  return new AuthError('invalid_reset_token', 'This reset link is unknown, expired or already used; ask for a new one');
}
