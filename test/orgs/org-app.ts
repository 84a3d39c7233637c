/**
 * An application for the organization suites: rate limits off, and the organization roles
 * `owner`, `admin`, `member` and `viewer` known (anything else is 422 `unknown_role`).
 */
import { expect } from 'chai';
import { AuthError, type ErrorCode } from '../../src/errors.js';
import { createTestApp, PASSWORD, type TestApp } from '../helpers/app.js';

export const ORG_ROLES = ['owner', 'admin', 'member', 'viewer'];

export async function orgApp(settings: Record<string, unknown> = {}): Promise<TestApp> {
  const t = await createTestApp({ SERVICE_AUTH_RATE_LIMIT_ENABLED: false, ...settings });
  knowOrgRoles(t);
  return t;
}

/** Makes the app know the suites' organization roles. */
export function knowOrgRoles(t: TestApp): void {
  t.parts.knownOrgRole = (name) => ORG_ROLES.includes(name);
}

let made = 0;

/** A new user with a fresh address (`<name>-<n>@example.com`). */
export async function newUser(t: TestApp, name = 'user') {
  return t.auth.users.create({ email: `${name}-${++made}@example.com`, password: PASSWORD });
}

/** The AuthError `work` rejects with, checked to carry `code`. */
export async function refusal(work: Promise<unknown>, code: ErrorCode): Promise<AuthError> {
  const error = await work.then(
    () => expect.fail(`expected ${code}, but it succeeded`),
    (error: unknown) => error,
  );
  expect(error).to.be.instanceOf(AuthError);
  expect((error as AuthError).code, (error as Error).message).to.equal(code);
  return error as AuthError;
}
