/**
 * The tickets between a login's two steps: the right password of a user with a second factor
 * earns one, and `POST /login/mfa` names it with a code. Kept in the database (any instance may
 * take the second step), as the SHA-256 of 32 random bytes; single use, five minutes, and five
 * tries (`failures` counts the codes tried: a right one ends the ticket anyway).
 */
import { raw } from '@mikro-orm/core';
import { randomSecret, sha256Hex } from '../secrets.js';
import { LoginTicket } from '../storage/entities/index.js';
import type { Storage, Transaction } from '../storage/storage.js';

const TICKET_TTL_MS = 5 * 60 * 1000;
export const WRONG_CODES_PER_TICKET = 5;

export class LoginTickets {
  constructor(private readonly storage: Storage) {}

  async issue(userId: number): Promise<string> {
    const ticket = randomSecret();
    const em = (await this.storage.em()).fork();
    await em.nativeDelete(LoginTicket, { expiresAt: { $lte: new Date() } });
    await em.insert(LoginTicket, {
      ticketHash: sha256Hex(ticket),
      user: userId,
      expiresAt: new Date(Date.now() + TICKET_TTL_MS),
      failures: 0,
    });
    return ticket;
  }

  /** The user a live ticket was issued to, or null. */
  async userOf(ticket: unknown): Promise<number | null> {
    if (typeof ticket !== 'string' || ticket.length > 100) return null;
    const em = (await this.storage.em()).fork();
    const row = await em.findOne(LoginTicket, {
      ticketHash: sha256Hex(ticket),
      expiresAt: { $gt: new Date() },
      failures: { $lt: WRONG_CODES_PER_TICKET },
    });
    return row ? row.user.id : null;
  }

  /**
   * Takes one of the ticket's five tries before its code is checked; false if none is left (or the
   * ticket is gone or expired). Taken first, in one conditional statement, so that codes sent at
   * once cannot all be checked: the sixth finds none.
   */
  async claim(ticket: string): Promise<boolean> {
    const em = (await this.storage.em()).fork();
    const live = {
      ticketHash: sha256Hex(ticket),
      failures: { $lt: WRONG_CODES_PER_TICKET },
      expiresAt: { $gt: new Date() },
    };
    return (await em.nativeUpdate(LoginTicket, live, { failures: raw('failures + 1') })) > 0;
  }

  /** A wrong code: its try is spent; the ticket whose tries are all spent goes. */
  async fail(ticket: string): Promise<void> {
    const em = (await this.storage.em()).fork();
    await em.nativeDelete(LoginTicket, { ticketHash: sha256Hex(ticket), failures: { $gte: WRONG_CODES_PER_TICKET } });
  }

  /** Uses the (claimed) ticket up, in the caller's transaction; false if another request used it first. */
  async consume(tx: Transaction, ticket: string): Promise<boolean> {
    return (
      (await tx.em.nativeDelete(LoginTicket, { ticketHash: sha256Hex(ticket), expiresAt: { $gt: new Date() } })) > 0
    );
  }

  /** Ends the user's tickets, in the caller's transaction: a password change ends what the old one earned. */
  async endAllOf(tx: Transaction, userId: number): Promise<void> {
    await tx.em.nativeDelete(LoginTicket, { user: userId });
  }
}
