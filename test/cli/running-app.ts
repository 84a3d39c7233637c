/**
 * What a CLI test asks of the application that runs on the same SQLite file while a CLI process
 * changes it: a login, `GET /me` with a session or a token, and waiting for a change to show.
 */
import { expect } from 'chai';
import request from 'supertest';
import { PASSWORD, sessionCookieFrom, type TestApp } from '../helpers/app.js';

/** How soon another process's change must reach a running app (README: "within a second"). */
export const PROPAGATION_MS = 1000;

/** A login's answer, whatever its status. */
export function loginResponse(t: TestApp, email: string, password = PASSWORD): request.Test {
  return request(t.app).post('/service-auth/login').send({ email, password });
}

/** A new session cookie (`name=value`) from a 200 login. */
export async function login(t: TestApp, email: string): Promise<string> {
  return sessionCookieFrom(await loginResponse(t, email).expect(200))!;
}

/** `GET /me` with a session cookie. */
export function meWithCookie(t: TestApp, cookie: string): request.Test {
  return request(t.app).get('/service-auth/me').set('Cookie', cookie);
}

/** `GET /me` with a bearer token. */
export function meWithToken(t: TestApp, token: string): request.Test {
  return request(t.app).get('/service-auth/me').set('Authorization', `Bearer ${token}`);
}

/**
 * Asks until the answer has this status, failing if it still has not `withinMs` after the first
 * ask; resolves with that answer's problem code (if any).
 */
export async function untilStatus(
  probe: () => request.Test,
  status: number,
  withinMs = PROPAGATION_MS,
): Promise<string | undefined> {
  const deadline = Date.now() + withinMs;
  for (;;) {
    const response = await probe();
    if (response.status === status) return (response.body as { code?: string }).code;
    if (Date.now() > deadline) expect.fail(`still ${response.status} after ${withinMs} ms; expected ${status}`);
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}
