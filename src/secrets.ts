/** Random secrets and the one-way digests we store in their place. */
import { hash, randomBytes, timingSafeEqual } from 'node:crypto';

/** 32 bytes from the CSPRNG, base64url (43 characters). */
export function randomSecret(): string {
  return randomBytes(32).toString('base64url');
}

/**
 * SHA-256, hex. Enough for secrets of 256 random bits (sessions, reset tokens): nothing to
 * brute-force, so a slow hash would only cost time. Stored instead of the secret, so a read of
 * the database cannot be replayed.
 */
export function sha256Hex(value: string): string {
  // The one-shot form: no Hash object to allocate and finalise, on every authenticated request.
  return hash('sha256', value, 'hex');
}

/** Compares two strings in time independent of where they differ. */
export function constantTimeEqual(a: string, b: string): boolean {
  const left = Buffer.from(a);
  const right = Buffer.from(b);
  return left.length === right.length && timingSafeEqual(left, right);
}
