/**
 * Other tokens in the table, for the cold verification figures at 10 and 100,000 stored tokens
 * (bench/index.ts, the server's `fill` command): random hashes, since they only need to be there. Inserted through MikroORM in batches; deriving
 * 100,000 real hashes would take hours.
 */
import { randomBytes } from 'node:crypto';
import type { EntityManager } from '@mikro-orm/core';
import { ApiToken } from '../dist/src/storage/entities/index.js';

/** Tokens of `owner` until the table holds `total`; the number it holds. */
export async function fillTokens(em: EntityManager, owner: number, total: number): Promise<number> {
  let stored = await em.count(ApiToken, {});
  while (stored < total) {
    const batch = Math.min(2000, total - stored);
    const rows = Array.from({ length: batch }, (_, i) => ({
      publicId: `fill${stored + i}`,
      user: owner,
      name: 'filler',
      algorithm: 'pbkdf2-sha256',
      hash: randomBytes(32).toString('hex'),
      salt: randomBytes(32).toString('hex'),
      iterations: 600_000,
      scopes: [],
      createdAt: new Date(),
    }));
    await em.insertMany(ApiToken, rows);
    stored += batch;
  }
  return stored;
}
