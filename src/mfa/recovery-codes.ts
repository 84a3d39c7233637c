/**
 * Recovery codes: ten, shown once, each 80 random bits written as four groups of four base32
 * letters (`k7qm-3xhv-p2dn-wr5a`). Stored as SHA-256 of the code without its dashes, lower case:
 * 80 bits leave nothing to brute-force, so a slow hash would only slow the login.
 */
import { randomBytes } from 'node:crypto';
import { sha256Hex } from '../secrets.js';

export const RECOVERY_CODE_COUNT = 10;
const ALPHABET = 'abcdefghijklmnopqrstuvwxyz234567';

export function newRecoveryCodes(): string[] {
  return Array.from({ length: RECOVERY_CODE_COUNT }, () => {
    const bytes = randomBytes(10);
    let bits = 0n;
    for (const byte of bytes) bits = (bits << 8n) | BigInt(byte);
    let letters = '';
    for (let i = 0; i < 16; i++) letters += ALPHABET[Number((bits >> BigInt(75 - i * 5)) & 31n)];
    return letters.match(/.{4}/g)!.join('-');
  });
}

/** The stored form of a code as typed: dashes, spaces and case do not matter. */
export function recoveryCodeHash(code: string): string {
  return sha256Hex(String(code).replace(/[\s-]/g, '').toLowerCase());
}
