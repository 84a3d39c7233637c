/**
 * Rows read for credentials (sessions, users, tokens), kept in memory for at most REVALIDATE_MS
 * (see storage.ts), with concurrent reads of one key sharing one query. Deleting a key (after a
 * change made here) also cancels a read of it in progress, so an older row is never kept.
 */
import { LRUCache } from 'lru-cache';
import { REVALIDATE_MS } from './storage.js';

/** lru-cache rejects a fetch it cancelled with one of these (deleted, evicted, or set meanwhile). */
const CANCELLED = new Set(['deleted', 'evicted', 'replaced']);

export class RowCache<K extends {}, V extends {}> {
  private readonly cache: LRUCache<K, V>;
  /** Keys whose row is being read: their rows cannot be tested yet, so `deleteWhere` cancels them. */
  private readonly loading = new Map<K, number>();

  constructor(load: (key: K) => Promise<V | undefined>, max = 50_000) {
    this.cache = new LRUCache<K, V>({
      max,
      ttl: REVALIDATE_MS,
      // How often the clock is read for staleness. lru-cache's default (every millisecond) sets a
      // timer per millisecond on a busy server; 50 ms keeps rows within REVALIDATE_MS + 50 ms.
      ttlResolution: 50,
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
    });
  }

  /** The row if held and fresh, without waiting. */
  peek(key: K): V | undefined {
    return this.cache.get(key);
  }

  /** The row, from memory if fresh, else read (undefined if there is none). */
  async fetch(key: K): Promise<V | undefined> {
    try {
      return await this.cache.fetch(key);
    } catch (error) {
      // A change here cancelled the read we were waiting for: read again, after the change.
      if (error instanceof Error && CANCELLED.has(error.message)) return this.cache.fetch(key);
      throw error;
    }
  }

  delete(key: K): void {
    this.cache.delete(key);
  }

  /**
   * Deletes every held row that matches, and cancels every read in progress (its row, not read
   * yet, might match): a read that started before a change must not keep the row from before it.
   */
  deleteWhere(matches: (row: V) => boolean): void {
    for (const [key, row] of this.cache.entries()) if (matches(row)) this.cache.delete(key);
    for (const key of [...this.loading.keys()]) this.cache.delete(key);
  }
}
