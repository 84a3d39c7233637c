/**
 * Several real application processes (the demo, as `npm start` runs it) on their own ports,
 * sharing one PostgreSQL database and one Redis: what "running several instances" means in
 * production, on one machine.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect } from 'chai';
import { Redis } from 'ioredis';
import { startDemo, type RunningDemo } from '../helpers/processes.js';
import { createPostgresDatabase } from '../helpers/services.js';

export interface Cluster {
  instances: RunningDemo[];
  /** The PostgreSQL database they share. */
  databaseUrl: string;
  /** The directory every instance writes its mails to (SERVICE_AUTH_MAIL_OUTBOX). */
  outbox: string;
  stop(): Promise<void>;
}

/**
 * Starts `count` instances at once on a fresh PostgreSQL database (they migrate it together, as a
 * deployment's first start would) with `env` added to each one's environment.
 */
export async function startCluster(count: number, env: NodeJS.ProcessEnv): Promise<Cluster> {
  const database = await createPostgresDatabase();
  const dir = await mkdtemp(join(tmpdir(), 'service-auth-cluster-'));
  const outbox = join(dir, 'outbox');
  const started = await Promise.allSettled(
    Array.from({ length: count }, () => startDemo(dir, { SERVICE_AUTH_DATABASE_URL: database.url, SERVICE_AUTH_MAIL_OUTBOX: outbox, ...env })),
  );
  const instances = started.flatMap((outcome) => (outcome.status === 'fulfilled' ? [outcome.value] : []));
  const stop = async () => {
    await Promise.all(instances.map((instance) => instance.stop()));
    await database.drop();
    await rm(dir, { recursive: true, force: true });
  };
  const failed = started.find((outcome): outcome is PromiseRejectedResult => outcome.status === 'rejected');
  if (failed) {
    await stop();
    throw failed.reason;
  }
  return { instances, databaseUrl: database.url, outbox, stop };
}

/** Forgets every rate-limit counter in the Redis at `url`, so one test's requests never limit another's. */
export async function clearRateLimits(url: string): Promise<void> {
  const redis = new Redis(url, { maxRetriesPerRequest: 1 });
  try {
    const keys = await redis.keys('service-auth:*');
    if (keys.length) await redis.del(...keys);
  } finally {
    redis.disconnect();
  }
}

/** A request as a browser-less client sends it: JSON in, the session cookie if given. */
export function call(base: string, path: string, init: { method?: string; body?: unknown; cookie?: string | undefined; token?: string } = {}): Promise<Response> {
  const headers: Record<string, string> = { Accept: 'application/json' };
  if (init.body !== undefined) headers['Content-Type'] = 'application/json';
  if (init.cookie) headers['Cookie'] = init.cookie;
  if (init.token) headers['Authorization'] = `Bearer ${init.token}`;
  return fetch(`${base}${path}`, {
    method: init.method ?? (init.body === undefined ? 'GET' : 'POST'),
    headers,
    body: init.body === undefined ? undefined : JSON.stringify(init.body),
  });
}

/** The `name=value` of the session cookie a response set. */
export function sessionCookie(response: Response): string {
  const cookie = response.headers.getSetCookie().find((c) => c.startsWith('service_auth_session='));
  expect(cookie, 'a session cookie').to.be.a('string');
  return cookie!.split(';')[0]!;
}

/**
 * Asks `probe` every 25 ms until it answers `status`; returns how long that took, or fails the
 * test once `withinMs` has passed.
 */
export async function msUntilStatus(probe: () => Promise<Response>, status: number, withinMs: number): Promise<number> {
  const started = performance.now();
  for (;;) {
    const response = await probe();
    await response.arrayBuffer();
    const elapsed = performance.now() - started;
    if (response.status === status) return elapsed;
    if (elapsed > withinMs) expect.fail(`still ${response.status} after ${Math.round(elapsed)} ms; expected ${status} within ${withinMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}
