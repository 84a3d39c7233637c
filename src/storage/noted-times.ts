/**
 * Times of use noted in memory and written in batches: a session's `last_seen_at`, a token's
 * `last_used_at`. Writing one per request would turn every read of a credential into a write;
 * noted here, they reach the table every `everyMs` (and at close) in one statement per batch
 * (times-update.ts), so the stored time lags by at most that much.
 */
import type { EntityKey, EntityName } from '@mikro-orm/core';
import type { Storage } from './storage.js';
import { updateTimes } from './times-update.js';

export class NotedTimes<T extends object> {
  /** Uses not yet written: the row's key to the time of its last use. */
  private readonly pending = new Map<string, number>();
  private readonly timer: NodeJS.Timeout;

  constructor(
    private readonly storage: Storage,
    private readonly table: { entity: EntityName<T>; key: EntityKey<T>; column: EntityKey<T> },
    everyMs: number,
  ) {
    this.timer = setInterval(() => void this.flush().catch(() => undefined), everyMs);
    this.timer.unref();
  }

  note(key: string, at: number = Date.now()): void {
    this.pending.set(key, at);
  }

  /** The time noted for this row and not yet written, if any. */
  noted(key: string): number | undefined {
    return this.pending.get(key);
  }

  /** Drops a noted use (its row is gone). */
  forget(key: string): void {
    this.pending.delete(key);
  }

  /** Writes the uses noted since the last flush. */
  async flush(): Promise<void> {
    if (this.pending.size === 0) return;
    const batch = [...this.pending];
    this.pending.clear();
    const em = await this.storage.em();
    await updateTimes(em, this.table.entity, this.table.key, this.table.column, batch);
  }

  async close(): Promise<void> {
    clearInterval(this.timer);
    await this.flush();
  }
}
