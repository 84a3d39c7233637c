/** A ServiceAuth on SQLite in memory, logging nothing, ready: for figures timed in this process. */
import express from 'express';
import { ServiceAuth } from '../dist/src/index.js';

export async function memoryAuth(): Promise<ServiceAuth> {
  const app = express();
  app.set('SERVICE_AUTH_DATABASE_URL', 'sqlite::memory:');
  const auth = new ServiceAuth(app);
  auth.logger = { info() {}, warn() {}, error() {} };
  await auth.ready;
  return auth;
}
