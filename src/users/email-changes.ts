/**
 * Changing the account's address: a link to the new address, a notice (no link) to the old one,
 * and the change itself once the new address confirms it. The address must be free when asked and
 * when confirmed (409 `email_taken`). The change confirms the address, and makes pending reset
 * and confirmation links useless: they went to the old one.
 */
import type { AuditLog } from '../audit/audit-log.js';
import { UniqueConstraintViolationException } from '@mikro-orm/core';
import type { EventBus } from '../events.js';
import type { LoggerHolder } from '../logger.js';
import { deliver } from '../mail/deliver.js';
import { emailChangeMail, emailChangeNoticeMail } from '../mail/messages.js';
import type { MailHolder } from '../mail/transport.js';
import { User } from '../storage/entities/index.js';
import type { Storage } from '../storage/storage.js';
import type { AuthUser } from './auth-user.js';
import { emailTaken, type UserCreation } from './creation.js';
import type { EmailTokens } from './email-tokens.js';
import { validEmail } from './emails.js';
import type { AccountLinks } from './links.js';
import type { UserLookup } from './lookup.js';
import { invalidConfirmationToken } from './registrations.js';
import type { ResetTokens } from './reset-tokens.js';
import type { UserCache } from './user-cache.js';

export interface EmailChangeDeps {
  storage: Storage;
  audit: AuditLog;
  creation: UserCreation;
  lookup: UserLookup;
  cache: UserCache;
  emailTokens: EmailTokens;
  resetTokens: ResetTokens;
  events: EventBus;
  links: AccountLinks;
  /** SERVICE_AUTH_CONFIRM_TOKEN_TTL. */
  ttlSeconds: number;
  mail: MailHolder;
  log: LoggerHolder;
}

export class EmailChanges {
  constructor(private readonly deps: EmailChangeDeps) {}

  /** Asks the new address to confirm (422 `invalid_email`, 409 `email_taken`), and tells the old one. */
  async request(user: AuthUser, email: string): Promise<void> {
    const { creation, emailTokens, links, ttlSeconds, mail, log } = this.deps;
    const address = validEmail(email);
    if (await creation.isTaken(address)) throw emailTaken(address);
    const token = await emailTokens.issue(user.id, 'change', address);
    await deliver(mail, log, emailChangeMail(address, links.to('/confirm-email', token), ttlSeconds));
    await deliver(mail, log, emailChangeNoticeMail(user.email, address));
  }

  /** Whether a change's token is current, for the page to say so before the button. */
  async isUsable(token: string): Promise<boolean> {
    return (await this.deps.emailTokens.claimOf(token, 'change')) !== null;
  }

  /** Moves the account to the address the token confirms. Event `email_changed`. */
  async confirm(token: string): Promise<AuthUser> {
    const { storage, emailTokens, resetTokens, cache, lookup, events } = this.deps;
    const em = await storage.em();
    let taken: string | undefined;
    try {
      const userId = await storage.transaction(em, async (tx) => {
        const claim = await emailTokens.consume(tx, token, 'change');
        if (!claim) {
          this.deps.audit.fail({ type: 'email_changed', reason: 'invalid_confirmation_token' });
          throw invalidConfirmationToken();
        }
        taken = claim.email;
        if (await tx.em.count(User, { email: claim.email, id: { $ne: claim.userId } })) throw emailTaken(claim.email);
        const now = new Date();
        const before = await tx.em.findOneOrFail(
          User,
          { id: claim.userId },
          { fields: ['email'], disableIdentityMap: true },
        );
        await tx.em.nativeUpdate(
          User,
          { id: claim.userId },
          { email: claim.email, emailConfirmedAt: now, updatedAt: now },
        );
        this.deps.audit.record(tx, {
          type: 'email_changed',
          userId: claim.userId,
          email: claim.email,
          detail: { previous_email: before.email },
        });
        await storage.changes.note(tx.em, [claim.userId]);
        await emailTokens.cancelAllOf(tx, claim.userId);
        await resetTokens.cancelAllOf(tx, claim.userId);
        return claim.userId;
      });
      cache.forget([userId]);
      const user = await lookup.get(userId);
      await events.emit('email_changed', user);
      return user;
    } catch (error) {
      // Another account took the address between the check and the write: the unique index decides.
      if (error instanceof UniqueConstraintViolationException && taken !== undefined) throw emailTaken(taken);
      throw error;
    }
  }
}
