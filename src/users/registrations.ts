/**
 * Registration with SERVICE_AUTH_EMAIL_CONFIRMATION on, and confirming an address. Registration
 * then reveals nothing about which addresses have accounts: the rules are checked, the password
 * hashed and the unconfirmed user written before the answer, with the same work for every
 * address, and the rest happens after it. A new address gets an unconfirmed user (there when the
 * answer goes) and a link; a taken one a notice, with no link that acts.
 */
import type { AuditLog } from '../audit/audit-log.js';
import { AuthError } from '../errors.js';
import type { EventBus } from '../events.js';
import type { LoggerHolder } from '../logger.js';
import { deliver } from '../mail/deliver.js';
import { alreadyRegisteredMail, confirmAddressMail } from '../mail/messages.js';
import type { MailHolder } from '../mail/transport.js';
import { User } from '../storage/entities/index.js';
import type { Storage } from '../storage/storage.js';
import type { AuthUser } from './auth-user.js';
import type { BackgroundWork } from './background-work.js';
import { registerIfFree, type NewUser, type UserCreation } from './creation.js';
import type { EmailTokens } from './email-tokens.js';
import { validEmail } from './emails.js';
import type { AccountLinks } from './links.js';
import type { UserLookup } from './lookup.js';
import type { PasswordChanges } from './password-changes.js';
import type { UserCache } from './user-cache.js';

export interface RegistrationDeps {
  storage: Storage;
  audit: AuditLog;
  creation: UserCreation;
  passwords: PasswordChanges;
  lookup: UserLookup;
  cache: UserCache;
  emailTokens: EmailTokens;
  events: EventBus;
  links: AccountLinks;
  /** SERVICE_AUTH_CONFIRM_TOKEN_TTL. */
  ttlSeconds: number;
  background: BackgroundWork;
  mail: MailHolder;
  log: LoggerHolder;
}

export class Registrations {
  constructor(private readonly deps: RegistrationDeps) {}

  /**
   * Registers an address that must be confirmed: 422 `invalid_email` or `password_rules` now; then
   * the password hashed and the unconfirmed user written, the same work for a taken address (see
   * registerIfFree); the event and the mail after the answer.
   */
  async register(input: NewUser): Promise<void> {
    const { creation, passwords, storage, audit } = this.deps;
    const checked = await creation.check({ ...input, emailConfirmed: false });
    const passwordHash = await passwords.hash(input.password);
    const userId = await registerIfFree(storage, audit, { ...checked, passwordHash });
    this.deps.background.run('a registration', () => this.finish(checked.email, userId));
  }

  /** Mails a new link to an unconfirmed account, after the answer; for any other address, nothing. */
  resend(email: string): void {
    const address = validEmail(email);
    this.deps.background.run('a confirmation link request', async () => {
      const user = await this.deps.lookup.find(address);
      if (user && !user.email_confirmed && !user.disabled) await this.sendLink(user);
    });
  }

  /** Whether a confirmation token is current, for the page to say so before the button. */
  async isUsable(token: string): Promise<boolean> {
    return (await this.deps.emailTokens.claimOf(token, 'confirm')) !== null;
  }

  /**
   * Confirms the address the token was mailed to: 400 `invalid_confirmation_token` if it is unknown,
   * used, expired, or the account's address is no longer the one it confirms. Event `email_confirmed`.
   */
  async confirm(token: string): Promise<AuthUser> {
    const { storage, emailTokens, cache, lookup, events } = this.deps;
    const em = await storage.em();
    const userId = await storage.transaction(em, async (tx) => {
      const claim = await emailTokens.consume(tx, token, 'confirm');
      const confirmed =
        claim &&
        (await tx.em.nativeUpdate(
          User,
          { id: claim.userId, email: claim.email },
          { emailConfirmedAt: new Date(), updatedAt: new Date() },
        ));
      if (!claim || !confirmed) {
        this.deps.audit.fail({ type: 'email_confirmed', userId: claim?.userId, reason: 'invalid_confirmation_token' });
        throw invalidConfirmationToken();
      }
      await storage.changes.note(tx.em, [claim.userId]);
      this.deps.audit.record(tx, { type: 'email_confirmed', userId: claim.userId, email: claim.email });
      return claim.userId;
    });
    cache.forget([userId]);
    const user = await lookup.get(userId);
    await events.emit('email_confirmed', user);
    return user;
  }

  /** After the answer: the new user's event and link, or the notice to a taken address's owner. */
  private async finish(email: string, userId: number | null): Promise<void> {
    const { links, mail, log } = this.deps;
    if (userId === null)
      return deliver(
        mail,
        log,
        alreadyRegisteredMail(email, { login: links.to('/login'), forgot: links.to('/forgot') }),
      );
    const user = await this.deps.lookup.get(userId);
    await this.deps.events.emit('user_registered', user);
    await this.sendLink(user);
  }

  private async sendLink(user: AuthUser): Promise<void> {
    const { emailTokens, links, ttlSeconds, mail, log } = this.deps;
    const token = await emailTokens.issue(user.id, 'confirm', user.email);
    await deliver(mail, log, confirmAddressMail(user.email, links.to('/confirm', token), ttlSeconds));
  }
}

export function invalidConfirmationToken(): AuthError {
  return new AuthError('invalid_confirmation_token', 'This confirmation link is unknown, expired or already used');
}
