/**
 * The sign-ins started and not yet answered (`service_auth_sso_attempts`): what the provider's
 * answer must match (state, nonce, the PKCE verifier), where to go after, and whether it links an
 * identity. Kept in the database, so that any instance may take the answer, by the SHA-256 of a
 * random id that only the starting browser holds (in a cookie): the answer alone, replayed or
 * carried to another browser, finds nothing. Single use, ten minutes.
 */
import { randomSecret, sha256Hex } from '../secrets.js';
import { SsoAttempt } from '../storage/entities/index.js';
import { SingleUseRows } from '../storage/single-use-rows.js';
import type { Storage } from '../storage/storage.js';
import type { AuthorizationChecks } from './client.js';

export const ATTEMPT_TTL_MS = 10 * 60 * 1000;

export interface Attempt extends AuthorizationChecks {
  provider: string;
  next: string | null;
  linkUserId: number | null;
}

export class SsoAttempts {
  private readonly rows: SingleUseRows<SsoAttempt>;

  constructor(storage: Storage) {
    this.rows = new SingleUseRows(storage, { entity: SsoAttempt, ttlMs: ATTEMPT_TTL_MS });
  }

  /** Keeps the attempt; returns the id for the browser's cookie. */
  async begin(attempt: Attempt): Promise<string> {
    const id = randomSecret();
    await this.rows.keep({ idHash: sha256Hex(id), ...attempt });
    return id;
  }

  /**
   * The attempt, used up: of two answers for one attempt only one goes on. Null for an unknown,
   * used or expired one.
   */
  async take(id: unknown): Promise<Attempt | null> {
    if (typeof id !== 'string' || id.length > 100) return null;
    const row = await this.rows.take({ idHash: sha256Hex(id) });
    if (!row) return null;
    const { provider, state, codeVerifier } = row;
    const { nonce, next, linkUserId } = row;
    return { provider, state, nonce: nonce ?? null, codeVerifier, next: next ?? null, linkUserId: linkUserId ?? null };
  }
}
