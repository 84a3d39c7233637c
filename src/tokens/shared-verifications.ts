/**
 * Which tokens verified, shared by every instance through Redis, so that a token costs one PBKDF2
 * derivation per deployment rather than one per process (docs/scaling.md): a freshly started
 * instance accepts the tokens in use at once.
 *
 * - The key is the HMAC-SHA256 of the raw token keyed with SERVICE_AUTH_SECRET. Redis never holds
 *   the token, nor anything a guess could be checked against without the secret; and whoever can
 *   write to Redis cannot make a token verify without the secret either.
 * - The value is the token's public id, which must be the id the token itself names.
 * - An entry lives no longer than its token, and at most a day.
 * - It only spares the derivation: revocation and expiry are still read from the token's row.
 * - Redis failing or slow costs a derivation, never a refusal: a look-up waits LOOKUP_TIMEOUT_MS
 *   at most, and a failed write is dropped.
 */
import { createHmac } from 'node:crypto';
import type { Redis } from 'ioredis';

const KEY_PREFIX = 'service-auth:verified:';
const MAX_TTL_SECONDS = 86_400;
const LOOKUP_TIMEOUT_MS = 250;

export class SharedVerifications {
  constructor(
    private readonly redis: Redis,
    private readonly secret: string,
  ) {}

  /** The public id the raw token verified as on some instance, if one says so. */
  async verifiedAs(raw: string): Promise<string | undefined> {
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<undefined>((resolve) => {
      timer = setTimeout(() => resolve(undefined), LOOKUP_TIMEOUT_MS);
      timer.unref();
    });
    try {
      return (await Promise.race([this.redis.get(this.key(raw)), timeout])) ?? undefined;
    } catch {
      return undefined;
    } finally {
      clearTimeout(timer);
    }
  }

  /** Notes that the raw token verified as `publicId`, for no longer than the token lives. */
  remember(raw: string, publicId: string, expiresAt: Date | null): void {
    const left = expiresAt === null ? MAX_TTL_SECONDS : Math.floor((expiresAt.getTime() - Date.now()) / 1000);
    const ttl = Math.min(MAX_TTL_SECONDS, left);
    if (ttl <= 0) return;
    this.redis.set(this.key(raw), publicId, 'EX', ttl).catch(() => undefined);
  }

  private key(raw: string): string {
    return KEY_PREFIX + createHmac('sha256', this.secret).update(raw).digest('hex');
  }
}
