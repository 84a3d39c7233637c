/**
 * What this instance holds of users' attribute values (`auth.defineUserAttributes`). It lives with
 * the users because the users' change feed says when to drop them: values are held until the feed
 * names the user (`auth.invalidateUser`, or any change to their credentials: storage/change-feed.ts),
 * so every instance reads them again within a second. What the values are, and how they are read
 * and checked, is authorization's (authorization/user-attributes.ts): this holds what it is given.
 */
import type { ChangeFeed } from '../storage/change-feed.js';
import { RowCache } from '../storage/row-cache.js';

export interface AttributeCacheDeps {
  feed: ChangeFeed;
  /** Writes to the change feed that the user changed, so that every instance drops what it holds. */
  noteChange: (userId: number) => Promise<void>;
}

export class UserAttributeCache<V extends {}> {
  private readonly rows: RowCache<number, V>;

  /** `read` gives a user's values when none are held (concurrent reads of one user share one call). */
  constructor(
    private readonly deps: AttributeCacheDeps,
    read: (userId: number) => Promise<V>,
  ) {
    this.rows = new RowCache(deps.feed, read);
    deps.feed.onChange((userId) => (userId === null ? this.clear() : this.rows.delete(userId)));
  }

  /** The user's values: held ones once the feed is fresh, else read. */
  fetch(userId: number): Promise<V | undefined> {
    return this.rows.fetch(userId);
  }

  /** Drops every held value here (a new resolver: what the old one gave no longer counts). */
  clear(): void {
    this.rows.deleteWhere(() => true);
  }

  /** Drops what every instance holds for the user (within a second elsewhere: the change feed); here at once. */
  async invalidate(userId: number): Promise<void> {
    await this.deps.noteChange(userId);
    this.rows.delete(userId);
  }
}
