/**
 * Credentials written directly by the bench server, for the figures that count statements, not
 * derivations (bench/credential-scale.ts, bench/orgs.ts): token rows that record one PBKDF2
 * iteration each (so that making 10,000 takes seconds), and session rows valid for a day.
 */
import type { EntityManager } from '@mikro-orm/core';
import { randomSecret, sha256Hex } from '../dist/src/secrets.js';
import { ApiToken, Session } from '../dist/src/storage/entities/index.js';
import { makeToken, randomBase62 } from '../dist/src/tokens/format.js';
import { derive, newSalt, PBKDF2_ALGORITHM } from '../dist/src/tokens/hashing.js';

/** A session row of the user, and the secret its cookie carries. */
export function sessionRow(userId: number) {
  const secret = randomSecret();
  const now = new Date();
  return {
    row: {
      idHash: sha256Hex(secret),
      publicId: randomBase62(16),
      user: userId,
      createdAt: now,
      lastSeenAt: now,
      expiresAt: new Date(now.getTime() + 86_400_000),
      userAgent: null,
    },
    secret,
  };
}

/** `count` tokens and `count` sessions of the user: the tokens, and the session cookies' values. */
export async function writeCredentials(
  em: EntityManager,
  userId: number,
  count: number,
): Promise<{ tokens: string[]; secrets: string[] }> {
  const tokens: string[] = [];
  const secrets: string[] = [];
  for (let made = 0; made < count;) {
    const batch = Math.min(1000, count - made);
    const tokenRows = [];
    const sessionRows = [];
    for (let i = 0; i < batch; i++) {
      const { token, id } = makeToken('sat');
      const salt = newSalt();
      tokenRows.push({
        publicId: id,
        user: userId,
        name: 'scale',
        algorithm: PBKDF2_ALGORITHM,
        hash: await derive(token, salt, 1),
        salt,
        iterations: 1,
        scopes: [],
        createdAt: new Date(),
      });
      tokens.push(token);
      const { row, secret } = sessionRow(userId);
      sessionRows.push(row);
      secrets.push(secret);
    }
    await em.insertMany(ApiToken, tokenRows);
    await em.insertMany(Session, sessionRows);
    made += batch;
  }
  return { tokens, secrets };
}
