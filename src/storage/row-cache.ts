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

  constructor(load: (key: K) => Promise<V | undefined>, max = 50_000) {
    this.cache = new LRUCache<K, V>({
      max,
      ttl: REVALIDATE_MS,
      // How often the clock is read for staleness. lru-cache's default (every millisecond) sets a
      // timer per millisecond on a busy server; 50 ms keeps rows within REVALIDATE_MS + 50 ms.
      ttlResolution: 50,
      fetchMethod: (key) => load(key),
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

  /** Deletes every held row that matches (rows being read are not seen: prefer `delete`). */
  deleteWhere(matches: (row: V) => boolean): void {
    for (const [key, row] of this.cache.entries()) if (matches(row)) this.cache.delete(key);
  }
}
