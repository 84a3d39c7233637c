/**
 * The password-reset tokens' table, and its only writer. A token is 32 random bytes mailed as a
 * link; only its SHA-256 is stored. It is single use, expires, and a newer request or any password
 * change makes older ones useless.
 */
import { LockMode } from '@mikro-orm/core';
import { randomSecret, sha256Hex } from '../secrets.js';
import { PasswordReset, User } from '../storage/entities/index.js';
import type { Storage, Transaction } from '../storage/storage.js';

export class ResetTokens {
  constructor(
    private readonly storage: Storage,
    private readonly ttlSeconds: number,
  ) {}

  /**
   * A new token for the user, replacing any unused one; returns the raw token (the only copy).
   * `alongside` writes in the same transaction (the audit record of the request).
   */
  async issue(userId: number, alongside?: (tx: Transaction) => void): Promise<string> {
    const token = randomSecret();
    const em = await this.storage.em();
    await this.storage.transaction(em, async (transaction) => {
      const tx = transaction.em;
      // Locks the user's row, so that of two requests at once the later one's delete sees the
      // earlier one's token (PostgreSQL would otherwise let both tokens live).
      await tx.findOne(User, { id: userId }, { lockMode: LockMode.PESSIMISTIC_WRITE });
      await tx.nativeDelete(PasswordReset, { user: userId, usedAt: null });
      tx.create(PasswordReset, {
        tokenHash: sha256Hex(token),
        user: userId,
        expiresAt: new Date(Date.now() + this.ttlSeconds * 1000),
      });
      alongside?.(transaction);
    });
    return token;
  }

  /** The user a token is current for, or null (unknown, used or expired). */
  async userOf(token: string): Promise<number | null> {
    const em = await this.storage.em();
    const reset = await em.findOne(PasswordReset, usable(sha256Hex(token)));
    return reset ? reset.user.id : null;
  }

  /**
   * Uses the token up, in the caller's transaction; false if it was not current. The conditional
   * update is the lock: of two requests racing with one token, one changes the row and the other
   * finds nothing left to change.
   */
  async consume(tx: Transaction, token: string): Promise<boolean> {
    return (await tx.em.nativeUpdate(PasswordReset, usable(sha256Hex(token)), { usedAt: new Date() })) === 1;
  }

  /** Makes every pending token of the user useless (the password or the address changed). */
  async cancelAllOf(tx: Transaction, userId: number): Promise<void> {
    await tx.em.nativeDelete(PasswordReset, { user: userId, usedAt: null });
  }

  /** Every row of the user, used or not (the account is being deleted). */
  async deleteAllOf(tx: Transaction, userId: number): Promise<void> {
    await tx.em.nativeDelete(PasswordReset, { user: userId });
  }
}

function usable(tokenHash: string) {
  return { tokenHash, usedAt: null, expiresAt: { $gt: new Date() } };
}
