/** What the account tests share: a user logged in over HTTP, with a token, and how to ask who they are. */
import express from 'express';
import request from 'supertest';
import { ServiceAuth } from '../../src/index.js';
import { captureLogger, PASSWORD, sessionCookieFrom, type TestApp } from '../helpers/app.js';

/** An application with ServiceAuth: a test app, or one of several instances on one database. */
export type App = Pick<TestApp, 'app' | 'auth'>;

export interface Member {
  email: string;
  id: number;
  /** `name=value` of a session cookie from a real login. */
  cookie: string;
  /** A raw API token of the user. */
  token: string;
}

/** Creates the user (confirmed, as `auth.users.create` does), logs in over HTTP and makes a token. */
export async function member(t: App, email: string, userAgent = 'Mozilla/5.0 (test)'): Promise<Member> {
  const user = await t.auth.users.create({ email, password: PASSWORD });
  return {
    email,
    id: user.id,
    cookie: await login(t, email, PASSWORD, userAgent),
    token: (await t.auth.tokens.create(email, { name: 'test' })).token,
  };
}

/** A new session cookie for the user (a 200 login), from a device with this user agent. */
export async function login(
  t: App,
  email: string,
  password = PASSWORD,
  userAgent = 'Mozilla/5.0 (test)',
): Promise<string> {
  const response = await request(t.app)
    .post('/service-auth/login')
    .set('User-Agent', userAgent)
    .send({ email, password })
    .expect(200);
  return sessionCookieFrom(response)!;
}

/** `GET /me` with a session cookie. */
export function meWithCookie(t: App, cookie: string) {
  return request(t.app).get('/service-auth/me').set('Cookie', cookie);
}

/** `GET /me` with a bearer token. */
export function meWithToken(t: App, token: string) {
  return request(t.app).get('/service-auth/me').set('Authorization', `Bearer ${token}`);
}

/** Polls `check` until it holds or `withinMs` passed; returns how long it took, or undefined. */
export async function within(withinMs: number, check: () => Promise<boolean>): Promise<number | undefined> {
  const started = Date.now();
  for (;;) {
    if (await check()) return Date.now() - started;
    if (Date.now() - started > withinMs) return undefined;
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}

/** Another instance of the application on a database it shares (an SQLite file), rate limits off. */
export async function instanceOn(databaseUrl: string): Promise<App> {
  const app = express();
  app.set('SERVICE_AUTH_DATABASE_URL', databaseUrl);
  app.set('SERVICE_AUTH_RATE_LIMIT_ENABLED', false);
  const auth = new ServiceAuth(app);
  auth.logger = captureLogger();
  app.use(auth.errorHandler);
  await auth.ready;
  return { app, auth };
}
