/**
 * Verifying bearer tokens fast under a deliberately slow hash.
 *
 * - A malformed token, a bad check, an unknown id, a revoked or expired token: no derivation.
 * - The first time this process sees a valid token: exactly one PBKDF2 derivation, found by id
 *   whatever the number of stored tokens; concurrent first uses wait for that same derivation.
 * - With a SharedVerifications (Redis and SERVICE_AUTH_SECRET), none either for a token another
 *   instance verified: one derivation per deployment, not per process.
 * - After that: none. The SHA-256 of the raw token (memory only, never stored) remembers that it
 *   verified, and also that any other token presented with the same id cannot (one raw value per
 *   id), so guessing secrets for a known id costs no derivation once the real one was seen.
 * - Before that, a forgery for a real id costs one derivation, once per raw value; a flood of them
 *   waits behind real tokens, since derivations are served by their client's failures
 *   (DerivationPool): a real token's first use is not starved, nor refused as busy.
 * - Rows are held until the change feed names their user (storage/change-feed.ts), so a revocation
 *   on another instance holds here within a second; one on this instance holds at once. Expiry is
 *   checked against the held row's time.
 * - `last_used_at` is noted in memory and written every FLUSH_MS (and at close), not per request.
 */
import { LRUCache } from 'lru-cache';
import { sha256Hex } from '../secrets.js';
import { ApiToken } from '../storage/entities/index.js';
import { RowCache } from '../storage/row-cache.js';
import type { Storage } from '../storage/storage.js';
import { NotedTimes } from '../storage/noted-times.js';
import type { DerivationPool } from './derivations.js';
import { hasValidChecksum, parseToken } from './format.js';
import { hashesMatch, LEGACY_ALGORITHM, PBKDF2_ALGORITHM } from './hashing.js';
import type { SharedVerifications } from './shared-verifications.js';

/** What verification needs of a token row. */
export interface TokenRecord {
  publicId: string;
  userId: number;
  algorithm: string;
  hash: string;
  salt: string | null;
  iterations: number | null;
  scopes: string[];
  /** The organization the token is bound to, or null. */
  orgId: number | null;
  expiresAt: Date | null;
  revokedAt: Date | null;
}

/** A legacy token's key in `records`: its hex SHA-256. */
const LEGACY_KEY_LENGTH = 64;

/** How often `last_used_at` reaches the database: within the minute the contract allows. */
export const FLUSH_MS = 30_000;

export class TokenVerifier {
  /**
   * Rows by public id (16 characters), or for legacy tokens by their SHA-256 (64 hex characters:
   * the two never collide), held until their user's credentials change.
   */
  private readonly records: RowCache<string, TokenRecord>;
  /** Made on first use: lru-cache allocates arrays for `max` entries up front (a CLI command verifies no token). */
  private memory:
    | { verified: LRUCache<string, string>; genuine: LRUCache<string, string>; failed: LRUCache<string, true> }
    | undefined;
  private readonly inflight = new Map<string, Promise<boolean>>();
  private readonly lastUsed: NotedTimes<ApiToken>;

  /** SHA-256 of a raw token that verified, to its id. */
  private get verified(): LRUCache<string, string> {
    return this.remembered().verified;
  }

  /** Id to the SHA-256 of the one raw token that verified for it. */
  private get genuine(): LRUCache<string, string> {
    return this.remembered().genuine;
  }

  /** SHA-256 of raw tokens whose derivation did not match. */
  private get failed(): LRUCache<string, true> {
    return this.remembered().failed;
  }

  private remembered() {
    return (this.memory ??= {
      verified: new LRUCache({ max: 100_000 }),
      genuine: new LRUCache({ max: 100_000 }),
      failed: new LRUCache({ max: 10_000 }),
    });
  }

  constructor(
    private readonly storage: Storage,
    private readonly pool: DerivationPool,
    private readonly shared?: SharedVerifications,
  ) {
    this.records = new RowCache(storage.changes, (key) => this.load(key), 100_000);
    storage.changes.onChange((userId) =>
      this.records.deleteWhere((record) => userId === null || record.userId === userId),
    );
    this.lastUsed = new NotedTimes(storage, { entity: ApiToken, key: 'publicId', column: 'lastUsedAt' }, FLUSH_MS);
  }

  /**
   * From memory alone, for a token seen recently: its record if it is valid, null if it is not,
   * undefined if memory cannot tell (then call `verify`). No promise, no query, no derivation.
   */
  check(raw: string): TokenRecord | null | undefined {
    const key = sha256Hex(raw);
    const known = this.verified.get(key);
    // A token that verified before is in the new format: no need to parse it again. Otherwise
    // only a legacy token can be answered from memory.
    const record =
      known !== undefined ? this.records.peek(known) : parseToken(raw) ? undefined : this.records.peek(key);
    return record ? this.use(record) : undefined;
  }

  /**
   * The token's record if the raw token is valid now, else null. `beforeDerivation` runs only when
   * the slow hash is needed, and may refuse by throwing (the per-client failure limit does). A
   * needed derivation waits its client's turn (`client`: its address, see DerivationPool), and
   * rejects with DerivationsBusyError when the queue is full of better-ranked ones.
   */
  async verify(raw: string, beforeDerivation?: () => Promise<void>, client?: string): Promise<TokenRecord | null> {
    const key = sha256Hex(raw);
    const parsed = parseToken(raw);
    if (!parsed) {
      const record = await this.records.fetch(key);
      return record ? this.use(record) : null;
    }
    const known = this.verified.get(key);
    if (known === undefined && !hasValidChecksum(raw, parsed)) return null;
    const record = await this.records.fetch(known ?? parsed.id);
    if (!record || record.algorithm !== PBKDF2_ALGORITHM) return null;
    if (
      known === undefined &&
      isUsable(record) &&
      !(await this.derivedMatch(key, raw, record, beforeDerivation, client))
    )
      return null;
    return this.use(record);
  }

  /** Forgets a token's row, after revoking it here: it is refused from the next request on. */
  evict(publicId: string): void {
    this.records.delete(publicId); // a new token's key, which also cancels a read in progress
    this.records.deleteWhere((record) => record.publicId === publicId); // a legacy token's
  }

  /** Forgets every row of a user (their tokens were revoked with a password reset). */
  evictUser(userId: number): void {
    this.records.deleteWhere((record) => record.userId === userId);
  }

  /** Writes the `last_used_at` noted since the last flush. */
  flush(): Promise<void> {
    return this.lastUsed.flush();
  }

  async close(): Promise<void> {
    this.pool.close();
    await this.lastUsed.close();
  }

  /** A verified token's record, if it is still usable, noting the use. */
  private use(record: TokenRecord): TokenRecord | null {
    if (!isUsable(record)) return null;
    this.lastUsed.note(record.publicId);
    return record;
  }

  /** One derivation per raw token, shared by concurrent callers, remembered either way. */
  private async derivedMatch(
    key: string,
    raw: string,
    record: TokenRecord,
    beforeDerivation?: () => Promise<void>,
    client?: string,
  ): Promise<boolean> {
    if (this.failed.has(key)) return false;
    const genuineKey = this.genuine.get(record.publicId);
    if (genuineKey !== undefined) return genuineKey === key;
    let pending = this.inflight.get(key);
    if (!pending && this.shared && (await this.shared.verifiedAs(raw)) === record.publicId) {
      this.noteGenuine(key, record.publicId);
      return true;
    }
    if (!pending) {
      await beforeDerivation?.();
      // Another caller may have started the same derivation while we waited.
      pending = this.inflight.get(key);
    }
    if (!pending) {
      pending = this.pool
        .derive(raw, record.salt!, record.iterations!, client)
        .then((derived) => {
          const matches = hashesMatch(derived, record.hash);
          if (matches) {
            this.noteGenuine(key, record.publicId);
            this.shared?.remember(raw, record.publicId, record.expiresAt);
          } else {
            this.failed.set(key, true);
            if (client !== undefined) this.pool.failed(client);
          }
          return matches;
        })
        .finally(() => this.inflight.delete(key));
      this.inflight.set(key, pending);
    }
    return await pending;
  }

  private noteGenuine(key: string, publicId: string): void {
    this.verified.set(key, publicId);
    this.genuine.set(publicId, key);
  }

  private async load(key: string): Promise<TokenRecord | undefined> {
    const em = await this.storage.em();
    const where = key.length === LEGACY_KEY_LENGTH ? { hash: key, algorithm: LEGACY_ALGORITHM } : { publicId: key };
    const row = await em.findOne(ApiToken, where);
    if (!row) return undefined;
    return {
      publicId: row.publicId,
      userId: row.user.id,
      algorithm: row.algorithm,
      hash: row.hash,
      salt: row.salt ?? null,
      iterations: row.iterations ?? null,
      scopes: row.scopes,
      orgId: row.org?.id ?? null,
      expiresAt: row.expiresAt ?? null,
      revokedAt: row.revokedAt ?? null,
    };
  }
}

function isUsable(record: TokenRecord): boolean {
  return record.revokedAt === null && (record.expiresAt === null || record.expiresAt.getTime() > Date.now());
}
