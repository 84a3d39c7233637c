/**
 * The real PostgreSQL and Redis the suites run against when SERVICE_AUTH_TEST_DATABASE_URL and
 * SERVICE_AUTH_TEST_REDIS_URL are set (as `.ci/run` sets them). Without them, those suites are
 * not registered and one line says so; with them, an unreachable server fails the suite.
 */
import { randomBytes } from 'node:crypto';
import { Redis } from 'ioredis';
import pg from 'pg';

export const postgresUrl = process.env['SERVICE_AUTH_TEST_DATABASE_URL'] || undefined;
export const redisUrl = process.env['SERVICE_AUTH_TEST_REDIS_URL'] || undefined;

// On the global object: this module may be loaded more than once (through tsx and its loaders),
// and the line is to be printed once per run.
const announced: Set<string> = ((globalThis as Record<symbol, Set<string>>)[
  Symbol.for('service-auth.tests.skipped')
] ??= new Set());

/** Registers `suite` only when the variable is set; otherwise says once that it is skipped. */
export function whenService(
  name: 'PostgreSQL' | 'Redis',
  url: string | undefined,
  variable: string,
  suite: () => void,
): void {
  if (url) {
    suite();
    return;
  }
  if (!announced.has(name)) {
    announced.add(name);
    console.log(`  (${name} suites skipped: set ${variable} to run them)`);
  }
}

export function describePostgres(title: string, suite: () => void): void {
  whenService('PostgreSQL', postgresUrl, 'SERVICE_AUTH_TEST_DATABASE_URL', () =>
    describe(`${title} [PostgreSQL]`, suite),
  );
}

export function describeRedis(title: string, suite: () => void): void {
  whenService('Redis', redisUrl, 'SERVICE_AUTH_TEST_REDIS_URL', () => describe(`${title} [Redis]`, suite));
}

/**
 * A fresh, empty database on the test server, dropped by the returned function: suites never
 * see each other's rows and can run on a server other things use.
 */
export async function createPostgresDatabase(): Promise<{ url: string; drop: () => Promise<void> }> {
  const base = new URL(postgresUrl!);
  const name = `service_auth_test_${randomBytes(6).toString('hex')}`;
  const admin = new pg.Client({ connectionString: postgresUrl });
  await admin.connect();
  try {
    await admin.query(`CREATE DATABASE ${name}`);
  } finally {
    await admin.end();
  }
  const url = new URL(base);
  url.pathname = `/${name}`;
  return {
    url: url.toString(),
    async drop() {
      const client = new pg.Client({ connectionString: postgresUrl });
      await client.connect();
      try {
        await client.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      } finally {
        await client.end();
      }
    },
  };
}

/**
 * This test process's SERVICE_AUTH_REDIS_PREFIX: suites running beside it (mocha's other worker,
 * another checkout's run) use the same Redis, and must neither see nor clear its counters.
 */
export const redisPrefix: string = ((globalThis as Record<symbol, string>)[
  Symbol.for('service-auth.tests.redisPrefix')
] ??= `test-${process.pid}-${randomBytes(4).toString('hex')}:`); // one per process, however often this module loads

/** The settings that point an app at the test Redis, under this process's prefix. */
export const redisSettings = () => ({ SERVICE_AUTH_REDIS_URL: redisUrl, SERVICE_AUTH_REDIS_PREFIX: redisPrefix });

/** Forgets every rate-limit counter under this process's prefix, so one test's requests never limit another's. */
export async function clearRateLimits(url: string): Promise<void> {
  const redis = new Redis(url, { maxRetriesPerRequest: 1 });
  try {
    const keys = await redis.keys(`${redisPrefix}*`);
    if (keys.length) await redis.del(...keys);
  } finally {
    redis.disconnect();
  }
}
