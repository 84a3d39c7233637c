/**
 * A freshly started instance meeting tokens it has never seen (docs/scaling.md, "What is shared"):
 * the time until 1,000 distinct tokens all answer 200 from it, on PostgreSQL.
 *
 * - With Redis and SERVICE_AUTH_SECRET, instances share which tokens verified (HMACs of the tokens),
 *   so the second instance derives none of them: a Redis read and a row each (target ≤ 2 s).
 * - Without, it derives each once (PBKDF2, 600,000 iterations): measured on a sample of 100 and
 *   given for 1,000 (a minute of two cores' work would add nothing but waiting).
 *
 * The tokens are real ones, at the full iteration count: the figure is about derivations. They are
 * made here (a derivation each, on this process's thread pool), written straight to the database,
 * then verified once by a first instance, which puts them in the shared cache.
 */
import { randomBytes } from 'node:crypto';
import { Redis } from 'ioredis';
import { openOrm } from '../dist/src/storage/orm.js';
import { ApiToken } from '../dist/src/storage/entities/index.js';
import { makeToken } from '../dist/src/tokens/format.js';
import { derive, newSalt, PBKDF2_ALGORITHM, PBKDF2_ITERATIONS } from '../dist/src/tokens/hashing.js';
import { AppProcess } from './app-process.js';
import { atMost, type Figure } from './figures.js';
import { createBenchDatabase } from './postgres.js';

const TOKENS = 1000;
const SAMPLE = 100;
const IN_FLIGHT = 32;
/** A Redis database of the bench's own, so that nothing of the tests' (database 0) is touched. */
const REDIS_URL = process.env['SERVICE_AUTH_BENCH_REDIS_URL'] || 'redis://127.0.0.1:6379/7';

export const FRESH_INSTANCE_FIGURE =
  'time until 1,000 new tokens answer 200 from a fresh second instance (PostgreSQL, Redis)';

export async function freshInstanceFigures(postgresUrl: string): Promise<Figure[]> {
  const database = await createBenchDatabase(postgresUrl);
  const redis = new Redis(REDIS_URL, { lazyConnect: true, maxRetriesPerRequest: 1 });
  await redis.connect();
  try {
    await clear(redis);
    const shared = { SERVICE_AUTH_REDIS_URL: REDIS_URL, SERVICE_AUTH_SECRET: randomBytes(32).toString('hex') };
    const first = await AppProcess.start({ databaseUrl: database.url, script: 'token-server.ts', env: shared });
    let tokens: string[];
    let making: number;
    let warming: Answered;
    try {
      const started = performance.now();
      tokens = await makeTokens(database.url, first.ready.userId, TOKENS);
      making = performance.now() - started;
      warming = await answerAll(first.base, tokens);
    } finally {
      await first.stop();
    }
    const withCache = await timeFresh(database.url, shared, tokens);
    const without = await timeFresh(database.url, {}, tokens.slice(0, SAMPLE));
    const withoutSeconds = (without.ms / 1000) * (TOKENS / SAMPLE);
    const detail =
      `${withCache.refused} of ${TOKENS} not 200, ${IN_FLIGHT} in flight; without the shared cache ${withoutSeconds.toFixed(0)} s ` +
      `(${SAMPLE} took ${(without.ms / 1000).toFixed(1)} s, ${without.refused} not 200); the tokens took ${(making / 1000).toFixed(0)} s to make ` +
      `and ${(warming.ms / 1000).toFixed(0)} s to verify on the first instance`;
    return [atMost(FRESH_INSTANCE_FIGURE, withCache.ms / 1000, 2, 's', detail)];
  } finally {
    await clear(redis).catch(() => undefined);
    redis.disconnect();
    await database.drop();
  }
}

/** Starts an instance, times `tokens` against it from its first moment, stops it. */
async function timeFresh(databaseUrl: string, env: Record<string, string>, tokens: string[]): Promise<Answered> {
  const fresh = await AppProcess.start({ databaseUrl, script: 'token-server.ts', env });
  try {
    return await answerAll(fresh.base, tokens);
  } finally {
    await fresh.stop();
  }
}

interface Answered {
  ms: number;
  refused: number;
}

/** Sends each token once to the token-guarded route, IN_FLIGHT at a time. */
async function answerAll(base: string, tokens: string[]): Promise<Answered> {
  const started = performance.now();
  let next = 0;
  let refused = 0;
  const worker = async () => {
    while (next < tokens.length) {
      const token = tokens[next++]!;
      const response = await fetch(`${base}/token`, { headers: { Authorization: `Bearer ${token}` } });
      await response.arrayBuffer();
      if (response.status !== 200) refused++;
    }
  };
  await Promise.all(Array.from({ length: IN_FLIGHT }, worker));
  return { ms: performance.now() - started, refused };
}

/** Real tokens of `userId`, at the full iteration count, written as the package writes them. */
async function makeTokens(databaseUrl: string, userId: number, count: number): Promise<string[]> {
  const orm = await openOrm(databaseUrl, { migrate: false });
  try {
    const rows = await Promise.all(
      Array.from({ length: count }, async (_, i) => {
        const { token, id } = makeToken('sat');
        const salt = newSalt();
        const hash = await derive(token, salt, PBKDF2_ITERATIONS);
        return {
          token,
          row: {
            publicId: id,
            user: userId,
            name: `fresh ${i}`,
            algorithm: PBKDF2_ALGORITHM,
            hash,
            salt,
            iterations: PBKDF2_ITERATIONS,
            scopes: [],
            createdAt: new Date(),
          },
        };
      }),
    );
    await orm.em.fork().insertMany(
      ApiToken,
      rows.map(({ row }) => row),
    );
    return rows.map(({ token }) => token);
  } finally {
    await orm.close(true);
  }
}

async function clear(redis: Redis): Promise<void> {
  const keys = await redis.keys('service-auth:*');
  if (keys.length > 0) await redis.del(...keys);
}
