/**
 * The change feed: how a change to what a user's credentials grant, made on one instance or by the
 * CLI, reaches every other instance (docs/scaling.md, "What is shared").
 *
 * Whatever ends or alters a credential (a logout, a revocation, sessions ended, a password change,
 * an account disabled, enabled or deleted, a role granted or taken) writes a row naming the user,
 * or everyone, in the change's own transaction (`note`). Rows read for credentials are then held
 * until their user changes rather than re-read on a timer: before a held row is used, the feed
 * must have been read within FEED_INTERVAL_MS (`isFresh`, else `catchUp`), with one indexed query
 * whatever the number of credentials held. The owners of the held rows (sessions, tokens, users)
 * drop a user's rows when the feed names them (`onChange`). A database that cannot be read makes
 * every held row unusable after FEED_INTERVAL_MS, as before: a credential is never served from
 * memory longer than a revocation may take to arrive.
 *
 * A row may instead name an organization (`noteOrgs`: created, renamed or deleted): the copies of it held by
 * every instance are dropped when the feed names it (`onOrgChange`), and nobody's credentials.
 *
 * Ids are drawn when a row is inserted, not when it commits: a transaction can commit after a later
 * one, leaving a gap below ids already read. The feed keeps reading from the first gap, skipping
 * the ids it applied, until the gap fills or GAP_WAIT_MS pass (a rolled-back change leaves its
 * gap for ever).
 */
import type { EntityManager } from './orm.js';
import { CredentialChange } from './entities/index.js';

/** How long held rows may be used without reading the feed: revocation holds within a second. */
export const FEED_INTERVAL_MS = 500;
/** How long a gap in the ids is waited for: far longer than a credential change's transaction. */
const GAP_WAIT_MS = 30_000;
/** Rows read at once; a backlog longer than this drops everything held and starts afresh. */
const MAX_ROWS = 5000;
/** The newest ids a starting instance looks at: those missing may be changes still in flight. */
const STARTING_WINDOW = 100;
/** Rows older than this are deleted now and then: every instance has read them long ago. */
const KEEP_MS = 60 * 60 * 1000;

/** The user whose credentials changed, or null for everyone's. */
export type ChangeListener = (userId: number | null) => void;
/** The organization that changed, or null for every organization. */
export type OrgChangeListener = (orgId: number | null) => void;

export class ChangeFeed {
  /** Every id up to this one was applied, or given up on. */
  private watermark: number | undefined;
  /** Ids above the watermark already applied. */
  private readonly applied = new Set<number>();
  /** Ids missing above the watermark, with when they were first missed. */
  private readonly gaps = new Map<number, number>();
  /**
   * The clock, in milliseconds. Internal, for the package's tests: they hold and move it to test
   * "within the interval" without waiting it out (test/helpers/feed-clock.ts).
   */
  now: () => number = Date.now;
  private lastRead = Number.NEGATIVE_INFINITY;
  private lastPrune = Date.now();
  private reading: Promise<void> | undefined;
  private readonly listeners: ChangeListener[] = [];
  private readonly orgListeners: OrgChangeListener[] = [];

  constructor(private readonly em: () => Promise<EntityManager>) {}

  onChange(listener: ChangeListener): void {
    this.listeners.push(listener);
  }

  onOrgChange(listener: OrgChangeListener): void {
    this.orgListeners.push(listener);
  }

  /** Whether rows held may be used as they are. */
  get isFresh(): boolean {
    return this.now() - this.lastRead < FEED_INTERVAL_MS;
  }

  /** Reads the feed unless it is fresh; concurrent callers share one read. */
  async catchUp(): Promise<void> {
    if (this.isFresh) return;
    this.reading ??= this.read().finally(() => (this.reading = undefined));
    await this.reading;
  }

  /** Records, in the caller's transaction, that the credentials of these users changed (null: everyone's). */
  async note(em: EntityManager, userIds: readonly number[] | null): Promise<void> {
    const rows = userIds === null ? [{ userId: null }] : [...new Set(userIds)].map((userId) => ({ userId }));
    if (rows.length === 0) return;
    const at = new Date();
    await em.insertMany(
      CredentialChange,
      rows.map((row) => ({ ...row, at })),
    );
  }

  /** Records, in the caller's transaction, that these organizations changed (created, renamed or deleted). */
  async noteOrgs(em: EntityManager, orgIds: readonly number[]): Promise<void> {
    if (orgIds.length === 0) return;
    const at = new Date();
    await em.insertMany(
      CredentialChange,
      [...new Set(orgIds)].map((orgId) => ({ userId: null, orgId, at })),
    );
  }

  private async read(): Promise<void> {
    const startedAt = this.now();
    const em = (await this.em()).fork();
    if (this.watermark === undefined) {
      // Nothing is held before the first read (every use of a held row waits for it), so what is
      // in the feed already needs no applying. But a change in flight now may have drawn an id
      // below the newest: the ids missing among the newest are waited for like any gap.
      const [newest] = await em.find(CredentialChange, {}, { orderBy: { id: 'desc' }, limit: 1, fields: ['id'] });
      this.watermark = Math.max(0, (newest?.id ?? 0) - STARTING_WINDOW);
      const recent = await em.find(
        CredentialChange,
        { id: { $gt: this.watermark } },
        { orderBy: { id: 'asc' }, fields: ['id'] },
      );
      this.apply(recent, startedAt, false);
    } else {
      const rows = await em.find(
        CredentialChange,
        { id: { $gt: this.watermark } },
        { orderBy: { id: 'asc' }, limit: MAX_ROWS, fields: ['id', 'userId', 'orgId'] },
      );
      if (rows.length === MAX_ROWS) this.startAfresh(rows[rows.length - 1]!.id);
      else this.apply(rows, startedAt);
    }
    this.lastRead = startedAt;
    if (startedAt - this.lastPrune > KEEP_MS) {
      this.lastPrune = startedAt;
      await em.nativeDelete(CredentialChange, { at: { $lt: new Date(startedAt - KEEP_MS) } });
    }
  }

  private apply(rows: { id: number; userId?: number | null; orgId?: number | null }[], now: number, emit = true): void {
    let highest = this.watermark!;
    for (const { id, userId, orgId } of rows) {
      highest = Math.max(highest, id);
      this.gaps.delete(id);
      if (this.applied.has(id)) continue;
      this.applied.add(id);
      if (!emit) continue;
      if (orgId != null) this.emitOrg(orgId);
      else this.emit(userId ?? null);
    }
    for (let id = this.watermark! + 1; id < highest; id++)
      if (!this.applied.has(id) && !this.gaps.has(id)) this.gaps.set(id, now);
    // Move the watermark past what is applied, and past gaps waited for long enough.
    for (;;) {
      const next = this.watermark! + 1;
      if (this.applied.delete(next)) this.watermark = next;
      else if (this.gaps.has(next) && now - this.gaps.get(next)! >= GAP_WAIT_MS) {
        this.gaps.delete(next);
        this.watermark = next;
      } else break;
    }
  }

  /** Too far behind to apply change by change: drop everything held. */
  private startAfresh(newest: number): void {
    this.watermark = newest;
    this.applied.clear();
    this.gaps.clear();
    this.emit(null);
    this.emitOrg(null);
  }

  private emit(userId: number | null): void {
    for (const listener of this.listeners) listener(userId);
  }

  private emitOrg(orgId: number | null): void {
    for (const listener of this.orgListeners) listener(orgId);
  }
}
