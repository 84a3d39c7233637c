/**
 * Rows read for credentials (sessions, users, tokens), held in memory until they change: a row is
 * used only while the change feed is fresh (read within FEED_INTERVAL_MS), and the row's owner
 * drops it when the feed names its user (see change-feed.ts). Concurrent reads of one key share
 * one query. Deleting a key (after a change made here) also cancels a read of it in progress, so
 * an older row is never kept.
 */
import { LRUCache } from 'lru-cache';
import type { ChangeFeed } from './change-feed.js';

/**
 * The longest a row is held even if the feed never names it: a change made around the package
 * (an operator's SQL) shows after this long.
 */
const HOLD_MS = 5 * 60 * 1000;

/** lru-cache rejects a fetch it cancelled with one of these (deleted, evicted, or set meanwhile). */
const CANCELLED = new Set(['deleted', 'evicted', 'replaced']);

export class RowCache<K extends {}, V extends {}> {
  /** Made on first use: lru-cache allocates arrays for `max` entries up front. */
  private held: LRUCache<K, V> | undefined;
  /** Keys whose row is being read: their rows cannot be tested yet, so `deleteWhere` cancels them. */
  private readonly loading = new Map<K, number>();

  constructor(
    private readonly feed: ChangeFeed,
    private readonly load: (key: K) => Promise<V | undefined>,
    private readonly max = 50_000,
  ) {}

  private get cache(): LRUCache<K, V> {
    const load = this.load;
    return (this.held ??= new LRUCache<K, V>({
      max: this.max,
      ttl: HOLD_MS,
      // How often the clock is read for staleness; lru-cache's default reads it every millisecond.
      ttlResolution: 1000,
      fetchMethod: async (key) => {
        this.loading.set(key, (this.loading.get(key) ?? 0) + 1);
        try {
          return await load(key);
        } finally {
          const left = this.loading.get(key)! - 1;
          if (left === 0) this.loading.delete(key);
          else this.loading.set(key, left);
        }
      },
    }));
  }

  /** The row if held and the feed is fresh, without waiting. */
  peek(key: K): V | undefined {
    return this.feed.isFresh ? this.cache.get(key) : undefined;
  }

  /** The row, from memory once the feed is fresh, else read (undefined if there is none). */
  async fetch(key: K): Promise<V | undefined> {
    await this.feed.catchUp();
    try {
      return await this.cache.fetch(key);
    } catch (error) {
      // A change here cancelled the read we were waiting for: read again, after the change.
      if (error instanceof Error && CANCELLED.has(error.message)) return this.cache.fetch(key);
      throw error;
    }
  }

  delete(key: K): void {
    this.held?.delete(key);
  }

  /**
   * Deletes every held row that matches, and cancels every read in progress (its row, not read
   * yet, might match): a read that started before a change must not keep the row from before it.
   */
  deleteWhere(matches: (row: V) => boolean): void {
    if (!this.held) return;
    for (const [key, row] of this.cache.entries()) if (matches(row)) this.cache.delete(key);
    for (const key of [...this.loading.keys()]) this.cache.delete(key);
  }
}
