/**
 * The users behind live credentials, held until the change feed names them: a role granted or
 * taken away, an account disabled elsewhere (another instance, the CLI) shows within a second,
 * without a query per request. Every change made through this instance drops the user's copy at once.
 */
import type { ChangeFeed } from '../storage/change-feed.js';
import { RowCache } from '../storage/row-cache.js';
import type { AuthUser } from './auth-user.js';
import type { UserLookup } from './lookup.js';

export class UserCache {
  private readonly rows: RowCache<number, AuthUser>;

  constructor(lookup: UserLookup, changes: ChangeFeed) {
    this.rows = new RowCache(changes, async (id) => (await lookup.find(id)) ?? undefined);
    changes.onChange((userId) => (userId === null ? this.rows.deleteWhere(() => true) : this.rows.delete(userId)));
  }

  /** The user if held and fresh, without waiting (the guards' fast path). */
  peek(id: number): AuthUser | undefined {
    return this.rows.peek(id);
  }

  /** The user, from memory if fresh, else read; null if there is none. */
  async fetch(id: number): Promise<AuthUser | null> {
    return (await this.rows.fetch(id)) ?? null;
  }

  /** Drops users after a change to them, made in this room. */
  forget(ids: Iterable<number>): void {
    for (const id of ids) this.rows.delete(id);
  }
}
