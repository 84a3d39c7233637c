/**
 * The demo application in this test process (`demo/app.ts`, its routes, roles and policy), on
 * databases in memory, driven over HTTP with supertest: for its routes, where a process of its own
 * adds nothing (demo.test.ts starts `npm start` for what only a process shows). Users act with
 * personal access tokens, as an API client would: no login, no rate limit on the way.
 */
import type { Express } from 'express';
import request from 'supertest';
import type { ServiceAuth } from '../../src/index.js';
import type { EntityManager as KnexEntityManager } from '../../src/storage/orm.js';
import { PASSWORD } from '../helpers/app.js';

export interface InProcessDemo {
  app: Express;
  auth: ServiceAuth;
  /** A user made by an operator (no roles unless given), with a token to act as them. */
  user(email: string, options?: { roles?: string[]; isAdmin?: boolean }): Promise<DemoUser>;
  close(): Promise<void>;
  /** Statements run so far on the demo's database (the auth one's also run in the background: its change feed, token use). */
  statements(): number;
}

export interface DemoUser {
  id: number;
  email: string;
  /** `method path` as this user (a bearer token), with a JSON body if given. */
  call(method: 'GET' | 'POST' | 'PATCH', path: string, body?: unknown): Promise<{ status: number; body: any }>;
}

/**
 * A demo of its own: the module loads once per process and builds its ServiceAuth as it loads,
 * so each suite imports it under a query of its own (`?name`), which makes a fresh instance (its
 * own ServiceAuth and database) while sharing the modules it imports.
 */
export async function inProcessDemo(name: string): Promise<InProcessDemo> {
  const previous = { ...process.env };
  process.env['SERVICE_AUTH_DATABASE_URL'] = 'sqlite::memory:';
  process.env['SERVICE_AUTH_PUBLIC_URL'] = 'http://localhost:3000';
  let demo: typeof import('../../demo/app.js');
  try {
    demo = (await import(`../../demo/app.js?${encodeURIComponent(name)}`)) as typeof import('../../demo/app.js');
  } finally {
    for (const key of ['SERVICE_AUTH_DATABASE_URL', 'SERVICE_AUTH_PUBLIC_URL']) {
      if (previous[key] === undefined) delete process.env[key];
      else process.env[key] = previous[key];
    }
  }
  const { app, auth, database } = demo;
  auth.logger = { info: () => undefined, warn: () => undefined, error: (...args: unknown[]) => console.error(...args) };
  await database.ready;
  let statements = 0;
  ((await database.em({} as never)) as KnexEntityManager).getConnection().getKnex().on('query', () => void statements++);
  return {
    app,
    auth,
    statements: () => statements,
    async user(email, { roles = [], isAdmin = false } = {}) {
      const user = await auth.users.create({ email, password: PASSWORD, roles, isAdmin });
      const { token } = await auth.tokens.create(user, { name: 'demo tests' });
      return {
        id: user.id,
        email,
        async call(method, path, body) {
          let pending = request(app)[method === 'GET' ? 'get' : method === 'POST' ? 'post' : 'patch'](path).set('Authorization', `Bearer ${token}`).set('Accept', 'application/json');
          if (body !== undefined) pending = pending.send(body as object);
          const response = await pending;
          return { status: response.status, body: response.body };
        },
      };
    },
    async close() {
      await database.close();
      await auth.close();
    },
  };
}
