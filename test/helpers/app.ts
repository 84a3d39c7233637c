/** A real Express application with ServiceAuth mounted, on in-memory SQLite unless told otherwise. */
import express, { type Express } from 'express';
import { ServiceAuth, type Logger } from '../../src/index.js';

export interface CapturedLog {
  level: 'info' | 'warn' | 'error';
  message: string;
  details: unknown[];
}

/** A logger that keeps what it is given, so tests can assert what was (and was not) logged. */
export function captureLogger(): Logger & { entries: CapturedLog[]; text(): string } {
  const entries: CapturedLog[] = [];
  const keep = (level: CapturedLog['level']) => (message: string, ...details: unknown[]) => {
    entries.push({ level, message, details });
  };
  return {
    entries,
    info: keep('info'),
    warn: keep('warn'),
    error: keep('error'),
    text: () => entries.map((e) => `${e.level} ${e.message} ${e.details.map((d) => (d instanceof Error ? d.stack : JSON.stringify(d))).join(' ')}`).join('\n'),
  };
}

export interface TestApp {
  app: Express;
  auth: ServiceAuth;
  log: ReturnType<typeof captureLogger>;
}

/**
 * Builds the app; `settings` are `app.set` before construction, `routes` are added after it.
 * Call `auth.close()` when done (see `useApp`).
 */
export async function createTestApp(
  settings: Record<string, unknown> = {},
  routes?: (app: Express, auth: ServiceAuth) => void,
): Promise<TestApp> {
  const app = express();
  app.set('SERVICE_AUTH_DATABASE_URL', 'sqlite::memory:');
  for (const [key, value] of Object.entries(settings)) app.set(key, value);
  const auth = new ServiceAuth(app);
  const log = captureLogger();
  auth.logger = log;
  routes?.(app, auth);
  await auth.ready;
  return { app, auth, log };
}

/** A user's strong password, valid under the default rules. */
export const PASSWORD = 'Correct-Horse-Battery-9';
