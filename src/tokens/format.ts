/**
 * The personal access token format: `<prefix>_<id>_<secret><check>`.
 *
 * - `<prefix>`: SERVICE_AUTH_TOKEN_PREFIX when the token was made (any `[a-z0-9]{1,10}` is read,
 *   so a changed prefix leaves older tokens valid); it also makes tokens easy to find with secret
 *   scanners.
 * - `<id>`: the public identifier (`DELETE /api/tokens/<id>`), 16 base62 characters.
 * - `<secret>`: 32 bytes from the CSPRNG as 43 base62 characters (256 bits).
 * - `<check>`: CRC32 of everything before it, as 6 base62 characters. A typo or a truncated paste
 *   fails here, before any database or hashing work.
 */
import { randomBytes, randomInt } from 'node:crypto';
import { crc32 } from 'node:zlib';

const BASE62 = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';
const SECRET_LENGTH = 43; // 62^43 > 2^256
const CHECK_LENGTH = 6; // 62^6 > 2^32
const ID_LENGTH = 16;
/**
 * Three underscore-separated parts, the first lower-case: a token in our format, complete or not.
 * A truncated or mistyped one is refused as such rather than looked up as a legacy token.
 */
const SHAPE = /^([a-z0-9]{1,10})_([A-Za-z0-9]{1,64})_([A-Za-z0-9]*)$/;
const MIN_TAIL = SECRET_LENGTH + CHECK_LENGTH;

export interface ParsedToken {
  prefix: string;
  id: string;
  /** Long enough to hold a secret and a check; a shorter one is a truncated paste. */
  complete: boolean;
}

export function makeToken(prefix: string): { token: string; id: string } {
  const id = randomBase62(ID_LENGTH);
  return { token: assembleToken(prefix, id, randomBytes(32)), id };
}

/** A well-formed token with this id and secret: its check is right, whatever the secret. */
export function assembleToken(prefix: string, id: string, secret: Buffer): string {
  const body = `${prefix}_${id}_${toBase62(secret, SECRET_LENGTH)}`;
  return `${body}${checksum(body)}`;
}

/** The parts of a token in our format (complete or not), or null for anything else: a legacy token. */
export function parseToken(token: string): ParsedToken | null {
  const match = SHAPE.exec(token);
  if (!match) return null;
  return { prefix: match[1]!, id: match[2]!, complete: match[3]!.length >= MIN_TAIL && token.length <= 300 };
}

/** Whether the check characters match: false means a typo or a forgery, refused at once. */
export function hasValidChecksum(token: string, parsed: ParsedToken): boolean {
  return parsed.complete && checksum(token.slice(0, -CHECK_LENGTH)) === token.slice(-CHECK_LENGTH);
}

/** A random identifier of `length` base62 characters, each uniformly drawn. */
export function randomBase62(length: number): string {
  let out = '';
  for (let i = 0; i < length; i++) out += BASE62[randomInt(62)];
  return out;
}

function checksum(body: string): string {
  return toBase62(BigInt(crc32(body)), CHECK_LENGTH);
}

function toBase62(value: Buffer | bigint, length: number): string {
  let number = typeof value === 'bigint' ? value : BigInt(`0x${value.toString('hex') || '0'}`);
  let out = '';
  while (number > 0n) {
    out = BASE62[Number(number % 62n)] + out;
    number /= 62n;
  }
  return out.padStart(length, '0');
}
