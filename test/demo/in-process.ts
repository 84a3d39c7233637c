/**
 * The demo application in this test process (`demo/app.ts`, its routes, roles and policy), on
 * databases in memory, driven over HTTP with supertest: for its routes, where a process of its own
 * adds nothing (demo.test.ts starts `npm start` for what only a process shows). Users act with
 * personal access tokens, as an API client would: no login, no rate limit on the way.
 */
import type { EntityManager } from '@mikro-orm/core';
import type { Express, Request } from 'express';
import request from 'supertest';
import type { ServiceAuth } from '../../src/index.js';
import { PASSWORD } from '../helpers/app.js';
import { importDemo } from '../helpers/demo-app.js';
import { onStatement } from '../helpers/orm.js';

export interface InProcessDemo {
  app: Express;
  auth: ServiceAuth;
  /** A user made by an operator (no roles unless given), with a token to act as them. */
  user(email: string, options?: { roles?: string[]; isAdmin?: boolean }): Promise<DemoUser>;
  /** An entity manager of the demo's own database (its rows, to compare with what routes answer). */
  em(): Promise<EntityManager>;
  close(): Promise<void>;
  /** Statements run so far on the demo's database (the auth one's also run in the background: its change feed, token use). */
  statements(): number;
}

type Call = (
  method: 'GET' | 'POST' | 'PATCH' | 'DELETE',
  path: string,
  body?: unknown,
) => Promise<{ status: number; body: any }>;

export interface DemoUser {
  id: number;
  email: string;
  /** `method path` as this user (a bearer token made without scopes), with a JSON body if given. */
  call: Call;
  /** Another token of this user, with these scopes (and bound to an organization, if given). */
  token(options: { scopes?: string[]; org?: string }): Promise<{ id: string; call: Call }>;
}

/** `method path` with a bearer token, as an API client sends it. */
function caller(app: Express, token: string): Call {
  return async (method, path, body) => {
    let pending = request(app)
      [method === 'GET' ? 'get' : method === 'POST' ? 'post' : method === 'PATCH' ? 'patch' : 'delete'](path)
      .set('Authorization', `Bearer ${token}`)
      .set('Accept', 'application/json');
    if (body !== undefined) pending = pending.send(body as object);
    const response = await pending;
    return { status: response.status, body: response.body };
  };
}

/** A demo of its own (its own ServiceAuth and databases in memory): `name` tells it from the others. */
export async function inProcessDemo(name: string): Promise<InProcessDemo> {
  const demo = await importDemo(name, {
    SERVICE_AUTH_DATABASE_URL: 'sqlite::memory:',
    SERVICE_AUTH_PUBLIC_URL: 'http://localhost:3000',
    SERVICE_AUTH_INSECURE_FAST_HASHING: 'true', // as in every suite's app (test/helpers/app.ts)
  });
  const { app, auth, database } = demo;
  auth.logger = { info: () => undefined, warn: () => undefined, error: (...args: unknown[]) => console.error(...args) };
  await database.ready;
  let statements = 0;
  await onStatement(await database.em({} as never), () => void statements++);
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
        call: caller(app, token),
        async token(options) {
          const made = await auth.tokens.create(user, { name: 'demo tests, scoped', ...options });
          return { id: made.id, call: caller(app, made.token) };
        },
      };
    },
    async em() {
      return database.em({} as Request);
    },
    async close() {
      await database.close();
      await auth.close();
    },
  };
}
