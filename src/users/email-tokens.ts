/**
 * The table of links that confirm an address, and its only writer. A token is 32 random bytes
 * mailed as a link; only its SHA-256 is stored, with the address it confirms. It is single use,
 * expires, and a newer link of the same kind makes older ones useless.
 */
import { LockMode } from '@mikro-orm/core';
import { randomSecret, sha256Hex } from '../secrets.js';
import { EmailToken, User } from '../storage/entities/index.js';
import type { Storage, Transaction } from '../storage/storage.js';

/** `confirm`: a new account's own address. `change`: the address an account moves to. */
export type EmailPurpose = 'confirm' | 'change';

/** What a current token stands for. */
export interface EmailTokenClaim {
  userId: number;
  /** The address it confirms. */
  email: string;
}

export class EmailTokens {
  constructor(
    private readonly storage: Storage,
    private readonly ttlSeconds: number,
  ) {}

  /** A new token, replacing any unused one of the kind; returns the raw token (the only copy). */
  async issue(userId: number, purpose: EmailPurpose, email: string): Promise<string> {
    const token = randomSecret();
    const em = await this.storage.em();
    await this.storage.transaction(em, async ({ em: tx }) => {
      // As with reset tokens: the user's row lock makes the later of two requests see the earlier's token.
      await tx.findOne(User, { id: userId }, { lockMode: LockMode.PESSIMISTIC_WRITE });
      await tx.nativeDelete(EmailToken, { user: userId, purpose, usedAt: null });
      tx.create(EmailToken, {
        tokenHash: sha256Hex(token),
        user: userId,
        purpose,
        email,
        expiresAt: new Date(Date.now() + this.ttlSeconds * 1000),
      });
    });
    return token;
  }

  /** What a token is current for, or null (unknown, used, expired, or of another kind). */
  async claimOf(token: string, purpose: EmailPurpose): Promise<EmailTokenClaim | null> {
    const em = await this.storage.em();
    const row = await em.findOne(EmailToken, usable(token, purpose));
    return row ? { userId: row.user.id, email: row.email } : null;
  }

  /**
   * Uses the token up, in the caller's transaction; null if it was not current. The conditional
   * update decides between two requests racing with one token.
   */
  async consume(tx: Transaction, token: string, purpose: EmailPurpose): Promise<EmailTokenClaim | null> {
    const row = await tx.em.findOne(EmailToken, usable(token, purpose));
    if (!row) return null;
    const used = await tx.em.nativeUpdate(EmailToken, { ...usable(token, purpose) }, { usedAt: new Date() });
    return used === 1 ? { userId: row.user.id, email: row.email } : null;
  }

  /** Makes the user's pending tokens useless: of one kind, or every kind. */
  async cancelAllOf(tx: Transaction, userId: number, purpose?: EmailPurpose): Promise<void> {
    await tx.em.nativeDelete(
      EmailToken,
      purpose ? { user: userId, purpose, usedAt: null } : { user: userId, usedAt: null },
    );
  }

  /** Every row of the user, used or not (the account is being deleted). */
  async deleteAllOf(tx: Transaction, userId: number): Promise<void> {
    await tx.em.nativeDelete(EmailToken, { user: userId });
  }
}

function usable(token: string, purpose: EmailPurpose) {
  return { tokenHash: sha256Hex(token), purpose, usedAt: null, expiresAt: { $gt: new Date() } };
}
