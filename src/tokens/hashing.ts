/**
 * How tokens are stored. New tokens: PBKDF2-HMAC-SHA256 of the whole raw token with a 32-byte
 * random salt and 600,000 iterations; each row keeps algorithm, salt and iteration count, so that
 * a later increase leaves old rows valid. Legacy tokens: unsalted hex SHA-256 (what the
 * application stored before), found by an indexed lookup of that hash, which is also the key the
 * verifier computes for every presented token (secrets.ts sha256Hex).
 */
import { pbkdf2, randomBytes } from 'node:crypto';
import { promisify } from 'node:util';
import { constantTimeEqual } from '../secrets.js';

export const PBKDF2_ALGORITHM = 'pbkdf2-sha256';
export const LEGACY_ALGORITHM = 'sha256';
export const PBKDF2_ITERATIONS = 600_000;
/** For test suites only (SERVICE_AUTH_INSECURE_FAST_HASHING, refused in production). */
export const FAST_PBKDF2_ITERATIONS = 1_000;
const KEY_LENGTH = 32;

const pbkdf2Async = promisify(pbkdf2);

export function newSalt(): string {
  return randomBytes(32).toString('hex');
}

/** One derivation, on libuv's thread pool (crypto.pbkdf2 with a callback never blocks the loop). */
export async function derive(token: string, saltHex: string, iterations: number): Promise<string> {
  const key = await pbkdf2Async(token, Buffer.from(saltHex, 'hex'), iterations, KEY_LENGTH, 'sha256');
  return key.toString('hex');
}

export function hashesMatch(a: string, b: string): boolean {
  return constantTimeEqual(a, b);
}
