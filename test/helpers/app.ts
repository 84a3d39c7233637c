/** A real Express application with ServiceAuth mounted, on in-memory SQLite unless told otherwise. */
import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { MikroORM } from '@mikro-orm/core';
import express, { type Express } from 'express';
import { ormOptions } from '../../src/storage/orm.js';
import { ServiceAuth, type Logger } from '../../src/index.js';
import { partsOf } from '../../src/instance-registry.js';
import type { AuthParts } from '../../src/wiring.js';

export interface CapturedLog {
  level: 'info' | 'warn' | 'error';
  message: string;
  details: unknown[];
}

/** A logger that keeps what it is given, so tests can assert what was (and was not) logged. */
export function captureLogger(): Logger & { entries: CapturedLog[]; text(): string } {
  const entries: CapturedLog[] = [];
  const keep =
    (level: CapturedLog['level']) =>
    (message: string, ...details: unknown[]) => {
      entries.push({ level, message, details });
    };
  return {
    entries,
    info: keep('info'),
    warn: keep('warn'),
    error: keep('error'),
    text: () =>
      entries
        .map(
          (e) =>
            `${e.level} ${e.message} ${e.details.map((d) => (d instanceof Error ? d.stack : JSON.stringify(d))).join(' ')}`,
        )
        .join('\n'),
  };
}

export interface TestApp {
  app: Express;
  auth: ServiceAuth;
  /** The parts behind `auth`, for counting work (hasher calls, derivations). */
  parts: AuthParts;
  log: ReturnType<typeof captureLogger>;
}

/**
 * Builds the app; `settings` are `app.set` before construction, `routes` are added after it, and
 * then the error middleware, as an application mounts it. Call `auth.close()` when done.
 *
 * Hashing is at its test costs (SERVICE_AUTH_INSECURE_FAST_HASHING) unless `settings` say
 * otherwise: at OWASP's costs a quarter of the suite's CPU went into argon2 and PBKDF2. The tests
 * of the costs themselves (the stored parameters, rehashing, the derivation pool) set it to false.
 */
export async function createTestApp(
  settings: Record<string, unknown> = {},
  routes?: (app: Express, auth: ServiceAuth) => void,
): Promise<TestApp> {
  const app = express();
  app.set('SERVICE_AUTH_DATABASE_URL', 'sqlite::memory:');
  if (app.get('env') !== 'production') app.set('SERVICE_AUTH_INSECURE_FAST_HASHING', true);
  for (const [key, value] of Object.entries(settings)) app.set(key, value);
  const auth = new ServiceAuth(app);
  const log = captureLogger();
  auth.logger = log;
  routes?.(app, auth);
  app.use(auth.errorHandler);
  await auth.ready;
  return { app, auth, parts: partsOf(auth), log };
}

/** A user's strong password, valid under the default rules. */
export const PASSWORD = 'Correct-Horse-Battery-9';

/** A temporary SQLite file that two ServiceAuth instances (or a test) can share. */
export async function temporaryDatabase(): Promise<{ url: string; remove(): Promise<void> }> {
  const dir = await mkdtemp(join(tmpdir(), 'service-auth-'));
  return { url: `sqlite:${join(dir, 'auth.sqlite')}`, remove: () => rm(dir, { recursive: true, force: true }) };
}

/**
 * A second, plain MikroORM on the same database, to look at what was stored (hashes, not secrets)
 * or to age a row. Close it when done.
 */
export async function openDatabase(url: string): Promise<MikroORM> {
  return MikroORM.init(await ormOptions(url));
}

/** The mails in an outbox directory, oldest first, once at least `count` have arrived. */
export async function outboxMails(
  dir: string,
  count = 1,
): Promise<{ to: string; subject: string; text: string; html?: string }[]> {
  for (let attempt = 0; ; attempt++) {
    const files = (await readdir(dir).catch(() => [] as string[])).filter((f) => f.endsWith('.json')).sort();
    if (files.length >= count || attempt > 100) {
      return Promise.all(files.map(async (f) => JSON.parse(await readFile(join(dir, f), 'utf8'))));
    }
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

export interface AppWithOutbox extends TestApp {
  /** The directory the app's mail goes to (SERVICE_AUTH_MAIL_OUTBOX). */
  outbox: string;
  /** Closes the app and removes the outbox. */
  close(): Promise<void>;
}

/** An app with rate limits off whose mail goes to a fresh outbox directory, for the mailing flows. */
export async function createAppWithOutbox(): Promise<AppWithOutbox> {
  const outbox = await temporaryDirectory();
  const t = await createTestApp({ SERVICE_AUTH_RATE_LIMIT_ENABLED: false, SERVICE_AUTH_MAIL_OUTBOX: outbox });
  return {
    ...t,
    outbox,
    async close() {
      await t.auth.close();
      await rm(outbox, { recursive: true, force: true });
    },
  };
}

/** A fresh, empty directory for an outbox. */
export async function temporaryDirectory(): Promise<string> {
  return mkdtemp(join(tmpdir(), 'service-auth-outbox-'));
}

/** The reset link's token from a mail. */
export function resetTokenFrom(mail: { text: string }): string {
  const match = /reset\?token=([A-Za-z0-9_-]+)/.exec(mail.text);
  if (!match) throw new Error(`no reset link in: ${mail.text}`);
  return match[1]!;
}

/** The session cookie (name=value) a response set. */
export function sessionCookieFrom(
  response: { headers: Record<string, unknown> },
  name = 'service_auth_session',
): string | undefined {
  const cookies = (response.headers['set-cookie'] as string[] | undefined) ?? [];
  const cookie = cookies.find((c) => c.startsWith(`${name}=`));
  return cookie?.split(';')[0];
}
