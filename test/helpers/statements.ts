/**
 * An app that counts the statements its database runs and notes the count when each response is
 * handed over: work done before an answer can tell something by its timing, work after it cannot.
 */
import express from 'express';
import { ServiceAuth } from '../../src/index.js';
import { partsOf } from '../../src/instance-registry.js';
import { captureLogger, type TestApp } from './app.js';
import { onStatement } from './orm.js';

export interface CountingApp extends TestApp {
  /** Statements run so far. */
  statements(): number;
  /** `statements()` at the moment each response was handed over, in order. */
  statementsAtAnswer: number[];
}

export async function countingApp(settings: Record<string, unknown>): Promise<CountingApp> {
  const app = express();
  let statements = 0;
  const statementsAtAnswer: number[] = [];
  // Before ServiceAuth: notes the count when the response is handed over.
  app.use((_req, res, next) => {
    const end = res.end.bind(res) as (...args: unknown[]) => typeof res;
    res.end = ((...args: unknown[]) => {
      statementsAtAnswer.push(statements);
      return end(...args);
    }) as typeof res.end;
    next();
  });
  app.set('SERVICE_AUTH_DATABASE_URL', 'sqlite::memory:');
  app.set('SERVICE_AUTH_INSECURE_FAST_HASHING', true); // as in createTestApp
  for (const [key, value] of Object.entries(settings)) app.set(key, value);
  const auth = new ServiceAuth(app);
  const log = captureLogger();
  auth.logger = log;
  app.use(auth.errorHandler);
  await auth.ready;
  const parts = partsOf(auth);
  await onStatement(await parts.storage.em(), () => void statements++);
  return { app, auth, parts, log, statementsAtAnswer, statements: () => statements };
}
