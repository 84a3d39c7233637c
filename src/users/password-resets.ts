/**
 * Forgotten passwords. The link is mailed to SERVICE_AUTH_PUBLIC_URL (links.ts).
 *
 * A request answers before anything is looked up: finding the account, writing its token, the
 * `password_reset_requested` handlers and the mail all happen after the response, so that neither
 * its content nor its timing tells whether the address has an account. A disabled account is
 * sent nothing. Completing a reset also confirms the address: the link was opened from its mailbox.
 */
import type { AuditLog } from '../audit/audit-log.js';
import { AuthError } from '../errors.js';
import type { EventBus } from '../events.js';
import type { LoggerHolder } from '../logger.js';
import { deliver } from '../mail/deliver.js';
import { passwordResetMail } from '../mail/messages.js';
import type { MailHolder } from '../mail/transport.js';
import { User } from '../storage/entities/index.js';
import type { UserRef } from '../storage/user-ref.js';
import type { Storage } from '../storage/storage.js';
import type { AuthUser } from './auth-user.js';
import type { BackgroundWork } from './background-work.js';
import { validEmail } from './emails.js';
import type { AccountLinks } from './links.js';
import type { UserLookup } from './lookup.js';
import type { PasswordChanges } from './password-changes.js';
import type { ResetTokens } from './reset-tokens.js';
import type { UserService } from './service.js';

export interface PasswordResetDeps {
  links: AccountLinks;
  /** SERVICE_AUTH_RESET_TOKEN_TTL and SERVICE_AUTH_REVOKE_TOKENS_ON_PASSWORD_RESET. */
  settings: { ttlSeconds: number; revokeTokens: boolean };
  background: BackgroundWork;
  storage: Storage;
  audit: AuditLog;
  users: UserService;
  lookup: UserLookup;
  tokens: ResetTokens;
  passwords: PasswordChanges;
  events: EventBus;
  mail: MailHolder;
  log: LoggerHolder;
}

export class PasswordResets {
  constructor(private readonly deps: PasswordResetDeps) {}

  /**
   * Starts a reset for the account with this email, if there is one, after the caller has
   * answered. Only the address's form is checked now (422 `invalid_email`, the same for every
   * address); the rest cannot fail the request.
   */
  request(email: string): void {
    const address = validEmail(email);
    this.deps.background.run('a password reset request', () => this.send(address));
  }

  /** Whether a reset token is current, for the reset page to say so before the user types. */
  async isUsable(token: string): Promise<boolean> {
    return (await this.deps.tokens.userOf(token)) !== null;
  }

  /**
   * Completes a reset: checks the token, then the password rules (a 422 leaves the token
   * usable), then, in one transaction, uses up the token and changes the password, which ends the
   * user's sessions (and tokens, per SERVICE_AUTH_REVOKE_TOKENS_ON_PASSWORD_RESET).
   */
  async complete(token: string, password: string): Promise<AuthUser> {
    const { storage, tokens, passwords, settings } = this.deps;
    const userId = await tokens.userOf(token);
    if (userId === null) throw this.invalidToken();
    const passwordHash = await passwords.hash(password);
    const em = await storage.em();
    await storage.transaction(em, async (tx) => {
      if (!(await tokens.consume(tx, token))) throw this.invalidToken();
      await passwords.replace(tx, userId, passwordHash, { revokeTokens: settings.revokeTokens });
      await tx.em.nativeUpdate(User, { id: userId, emailConfirmedAt: null }, { emailConfirmedAt: new Date() });
      this.deps.audit.record(tx, {
        type: 'password_reset_completed',
        userId,
        detail: { tokens_revoked: settings.revokeTokens },
      });
    });
    return this.completed(userId);
  }

  /** Sets a password without a token, for operators (`auth reset-password`): a reset's effects, event included. */
  async reset(ref: UserRef, password: string): Promise<AuthUser> {
    const user = await this.deps.users.setPassword(ref, password);
    return this.completed(user.id);
  }

  /** Waits for the requests still being handled (and any other work after an answer). */
  flush(): Promise<void> {
    return this.deps.background.flush();
  }

  private async send(email: string): Promise<void> {
    const { lookup, tokens, links, settings, events, mail, log } = this.deps;
    const user = await lookup.find(email);
    if (!user || user.disabled) {
      this.deps.audit.fail({
        type: 'password_reset_requested',
        userId: user?.id,
        email,
        reason: user ? 'account_disabled' : 'not_found',
      });
      return;
    }
    const token = await tokens.issue(user.id, (tx) =>
      this.deps.audit.record(tx, { type: 'password_reset_requested', userId: user.id, email }),
    );
    await events.emit('password_reset_requested', user);
    await deliver(mail, log, passwordResetMail(user.email, links.to('/reset', token), settings.ttlSeconds));
  }

  private async completed(userId: number): Promise<AuthUser> {
    const user = await this.deps.lookup.get(userId);
    await this.deps.events.emit('password_reset_completed', user);
    return user;
  }

  /** A reset link that does not work: recorded, then refused. */
  private invalidToken(): AuthError {
    this.deps.audit.fail({ type: 'password_reset_completed', reason: 'invalid_reset_token' });
    return invalidResetToken();
  }
}

function invalidResetToken(): AuthError {
  return new AuthError('invalid_reset_token', 'This reset link is unknown, expired or already used; ask for a new one');
}
