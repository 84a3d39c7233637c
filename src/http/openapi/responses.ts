/**
 * The document's response objects: bodies, pages, redirects and, for each refusal status, problem
 * details whose `code` lists exactly the codes the endpoint answers with that status.
 */
import type { OpenAPIV3_1 } from 'openapi-types';
import type { z } from 'zod';
import { AuthError, type ErrorCode } from '../../errors.js';
import { MAX_PATH_SEGMENT } from '../requests/input.js';
import { problemSchema } from '../schemas/problems.js';
import type { SchemaComponents } from './json-schema.js';

/**
 * An extension of a response object: what a browser's navigation, or a form sent from one of the
 * pages, gets with this status in place of `content`, with `content`'s shape (a page). Kept out of
 * `content` so that a client generated from the document (openapi-typescript with openapi-fetch)
 * types the answers of the JSON API as JSON, not as JSON or a string.
 */
export const BROWSER_CONTENT = 'x-browser-content';

export type Response = OpenAPIV3_1.ResponseObject & { [BROWSER_CONTENT]?: Record<string, OpenAPIV3_1.MediaTypeObject> };
export type Headers = Record<string, OpenAPIV3_1.HeaderObject>;

/** Every page, and the short note Express puts in a redirect for a browser: text. */
export const HTML: OpenAPIV3_1.MediaTypeObject = {
  schema: { type: 'string', description: 'An HTML page (the built-in one, or the application’s own view)' },
};

const counter = { type: 'string', pattern: '^\\d+$' } as const;

export const HEADERS = {
  noStore: { description: 'Kept out of caches', required: true, schema: { type: 'string', enum: ['no-store'] } },
  location: { description: 'Where the browser goes next', required: true, schema: { type: 'string' } },
  wwwAuthenticate: {
    description: 'How to authenticate: `Bearer realm="service-auth"`, with `error=` when a token was refused',
    schema: { type: 'string', pattern: '^Bearer realm="service-auth"' },
  },
  retryAfter: { description: 'Seconds to wait before trying again', schema: counter },
} satisfies Record<string, OpenAPIV3_1.HeaderObject>;

/**
 * The IETF RateLimit fields, on every response a limit counted, refusals included. Never marked
 * required: an answer given before the count (a body the application's own parser refused, a path
 * that cannot be read) or a 429 of the application's own carries none.
 */
export function rateLimitHeaders(): Headers {
  const when = 'when the endpoint’s limit counted the request';
  return {
    'RateLimit-Limit': { description: `Requests allowed in the window, ${when}`, schema: counter },
    'RateLimit-Remaining': { description: `Requests left in the window, ${when}`, schema: counter },
    'RateLimit-Reset': { description: `Seconds until the window resets, ${when}`, schema: counter },
  };
}

export function json(schemas: SchemaComponents, description: string, body: z.ZodType, headers: Headers = {}): Response {
  return { description, headers, content: { 'application/json': { schema: schemas.of(body, 'output') } } };
}

export function page(description: string, headers: Headers = {}): Response {
  return { description, headers: { 'Cache-Control': HEADERS.noStore, ...headers }, content: { 'text/html': HTML } };
}

/** Express's line saying where a redirect goes, as HTML or text, by the request's Accept. */
const REDIRECT_NOTE: OpenAPIV3_1.MediaTypeObject = {
  schema: { type: 'string', description: 'See Other. Redirecting to …' },
};

/** A 303 to a browser that sent a form or navigated. */
export function redirect(description: string, headers: Headers = {}): Response {
  return {
    description,
    headers: { Location: HEADERS.location, ...headers },
    content: { 'text/html': REDIRECT_NOTE, 'text/plain': REDIRECT_NOTE },
  };
}

export function noContent(description: string, headers: Headers = {}): Response {
  return { description, headers };
}

/** One answer with two forms: JSON for programs, a page for a browser's form. */
export function jsonOrPage(
  schemas: SchemaComponents,
  description: string,
  body: z.ZodType,
  headers: Headers = {},
): Response {
  return { ...json(schemas, description, body, headers), [BROWSER_CONTENT]: { 'text/html': HTML } };
}

/** What each code means, whichever endpoint answers it. */
const MEANINGS: Record<ErrorCode, string> = {
  bad_request:
    `a body that cannot be read (malformed, not UTF-8, NUL characters), a missing or mistyped ` +
    `field, or a path that does not decode, holds a NUL or has a segment over ` +
    `${MAX_PATH_SEGMENT} characters`,
  invalid_reset_token: 'the reset link is unknown, expired or used',
  invalid_passkey:
    'the passkey’s answer could not be verified: an unknown passkey, a challenge used, expired or of another user, another origin',
  invalid_invitation: 'the invitation is unknown, used, revoked or expired',
  sso_failed:
    'sign-in through an identity provider refused, no session: `reason` is state, nonce, ' +
    'issuer, signature, audience, provider_error, email_unverified or not_linked (docs/sso.md)',
  invalid_confirmation_token:
    'the confirmation link is unknown, expired or used, or the account’s address changed since',
  unauthenticated: 'no session cookie and no bearer token',
  invalid_credentials: 'the email or the password is not right (the same for an unknown email)',
  invalid_token: 'the bearer token is malformed, unknown, expired or revoked',
  mfa_required:
    'the password is right and the account has a second factor: no session yet; `ticket` names ' +
    'the login for POST /login/mfa, `methods` what it may bring',
  invalid_code: 'the authenticator code or recovery code is not right, or was used already',
  invalid_ticket: 'the login ticket is unknown, used, expired or ended by five wrong codes: log in again',
  forbidden: 'the credentials do not allow this',
  insufficient_scope: 'the token’s scopes do not allow this',
  csrf_rejected: 'the request came from another site (Sec-Fetch-Site, Origin)',
  session_required: 'this needs a logged-in session, not a token',
  account_disabled: 'the password is right, but an operator disabled the account',
  impersonation_forbidden:
    'the request acts as another user (impersonation), and changing this user’s password, ' +
    'address, second factor, sessions or tokens, deleting the account, or acting as someone ' +
    'else is not done in their name',
  invitation_email_mismatch: 'the invitation is for another address than the signed-in user’s confirmed one',
  email_unconfirmed: 'the password is right, but the address awaits confirmation (SERVICE_AUTH_EMAIL_CONFIRMATION)',
  not_found: 'no such thing here (for tokens: none of the caller’s)',
  request_timeout: 'the body did not arrive whole within SERVICE_AUTH_BODY_TIMEOUT_MS; the connection is closed',
  email_taken: 'a user with this email exists',
  token_limit: 'the user has SERVICE_AUTH_MAX_TOKENS_PER_USER active tokens',
  role_in_use: 'the role is held by users',
  slug_taken: 'an organization has this slug',
  too_many_organizations: 'the user owns SERVICE_AUTH_MAX_ORGS_PER_USER organizations already; nothing was created',
  last_owner: 'the organization would be left without a member holding an owner role (SERVICE_AUTH_ORG_OWNER_ROLES)',
  already_member: 'the user, or the address invited, is a member of the organization already',
  last_sign_in_method: 'the identity is the account’s only way in (no password, passkey or other identity)',
  identity_in_use: 'the identity is linked to another account',
  row_changed:
    'a flush through req.em found a row changed by another writer since it read it, in a column the rules decide on, ' +
    'yet still within reach (403 forbidden where it no longer is); nothing was written (the application’s own routes)',
  org_has_members:
    'the organization has members besides its owners, and was to be deleted only without them ' +
    '(the library and the CLI; never answered over HTTP)',
  mfa_already_enabled: 'the account has a confirmed authenticator app; remove it first',
  payload_too_large:
    'the body is over 16 KiB (declared or as sent; or over the limit of the application’s own body parser); the connection is closed',
  invalid_email: 'not an email address',
  password_rules: 'the password fails rules; `errors` lists every one',
  unknown_role: 'no organization role has this name',
  unknown_scope: 'the application defines scopes, and not this one',
  rate_limited: 'over a rate limit; retry after Retry-After seconds',
  internal_error: 'an unexpected error (details in the server log)',
  unavailable: 'storage is out of reach or busy; retry shortly',
  attributes_unavailable:
    'the application’s attributes of the user, which its rules name, could not be read (the ' +
    'resolver of `defineUserAttributes` failed); nothing of why is told',
};

export function statusOf(code: ErrorCode): number {
  return new AuthError(code, '').status;
}

/**
 * A response per refusal status: problem details for programs, and a page (the form again, or a
 * page of its own) for a browser's navigation or form, which the one error middleware answers.
 */
export function refusals(schemas: SchemaComponents, codes: readonly ErrorCode[]): Record<string, Response> {
  const byStatus = new Map<number, ErrorCode[]>();
  for (const code of new Set(codes)) byStatus.set(statusOf(code), [...(byStatus.get(statusOf(code)) ?? []), code]);
  const responses: Record<string, Response> = {};
  for (const [status, group] of [...byStatus].sort(([a], [b]) => a - b)) {
    const list = group as [ErrorCode, ...ErrorCode[]];
    responses[String(status)] = {
      description: list.map((code) => `\`${code}\`: ${MEANINGS[code]}`).join('; '),
      headers: refusalHeaders(status, list),
      content: { 'application/problem+json': { schema: schemas.of(problemSchema(status, list), 'output') } },
      [BROWSER_CONTENT]: { 'text/html': HTML },
    };
  }
  return responses;
}

function refusalHeaders(status: number, codes: readonly ErrorCode[]): Headers {
  const headers: Headers = { 'Cache-Control': HEADERS.noStore };
  if (status === 401) headers['WWW-Authenticate'] = { ...HEADERS.wwwAuthenticate, required: true };
  if (codes.includes('insufficient_scope')) headers['WWW-Authenticate'] = HEADERS.wwwAuthenticate;
  if (status === 429)
    Object.assign(headers, { 'Retry-After': { ...HEADERS.retryAfter, required: true } }, rateLimitHeaders());
  if (status === 503) headers['Retry-After'] = HEADERS.retryAfter;
  return headers;
}
