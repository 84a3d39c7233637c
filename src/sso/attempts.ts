/**
 * The sign-ins started and not yet answered (`service_auth_sso_attempts`): what the provider's
 * answer must match (state, nonce, the PKCE verifier), where to go after, and whether it links an
 * identity. Kept in the database, so that any instance may take the answer, by the SHA-256 of a
 * random id that only the starting browser holds (in a cookie): the answer alone, replayed or
 * carried to another browser, finds nothing. Single use, ten minutes.
 */
import { randomSecret, sha256Hex } from '../secrets.js';
import { SsoAttempt } from '../storage/entities/index.js';
import type { Storage } from '../storage/storage.js';
import type { AuthorizationChecks } from './client.js';

export const ATTEMPT_TTL_MS = 10 * 60 * 1000;

export interface Attempt extends AuthorizationChecks {
  provider: string;
  next: string | null;
  linkUserId: number | null;
}

export class SsoAttempts {
  constructor(private readonly storage: Storage) {}

  /** Keeps the attempt; returns the id for the browser's cookie. */
  async begin(attempt: Attempt): Promise<string> {
    const id = randomSecret();
    const em = (await this.storage.em()).fork();
    await em.nativeDelete(SsoAttempt, { expiresAt: { $lte: new Date() } });
    await em.insert(SsoAttempt, { idHash: sha256Hex(id), ...attempt, expiresAt: new Date(Date.now() + ATTEMPT_TTL_MS) });
    return id;
  }

  /**
   * The attempt, used up: deleted in the same step that finds it, so that of two answers for one
   * attempt only one goes on. Null for an unknown, used or expired one.
   */
  async take(id: unknown): Promise<Attempt | null> {
    if (typeof id !== 'string' || id.length > 100) return null;
    const em = (await this.storage.em()).fork();
    const idHash = sha256Hex(id);
    const row = await em.findOne(SsoAttempt, { idHash });
    if (!row || (await em.nativeDelete(SsoAttempt, { idHash })) === 0 || row.expiresAt.getTime() <= Date.now()) return null;
    return { provider: row.provider, state: row.state, nonce: row.nonce ?? null, codeVerifier: row.codeVerifier, next: row.next ?? null, linkUserId: row.linkUserId ?? null };
  }
}
