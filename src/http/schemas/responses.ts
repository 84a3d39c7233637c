/**
 * The auth router's response bodies, as schemas: what the OpenAPI description (../openapi.ts) says
 * each endpoint answers, and what the test suites check every response against. Each is tied to
 * the type the code answers with (`satisfies`), so that a field added to one and not the other
 * does not compile.
 */
import { AUDIT_TYPES } from '../../audit/records.js';
import { z } from 'zod';
import { SCOPE } from '../../tokens/fields.js';
import type { SessionView } from '../../sessions/store.js';
import type { CreatedToken, TokenView } from '../../tokens/service.js';
import type { PublicUser } from '../../users/auth-user.js';

export const timestamp = z.iso
  .datetime()
  .meta({ id: 'Timestamp', description: 'An ISO 8601 time in UTC, e.g. 2026-01-31T09:30:00.000Z' });

export const userSchema = z
  .object({
    id: z.number().int().positive(),
    // The WHATWG form an address was checked against when stored (users/emails.ts), lower-cased.
    email: z.string().regex(z.regexes.html5Email).meta({ description: 'Lower-cased' }),
    is_admin: z.boolean(),
    roles: z.array(z.string()).meta({ description: 'Role names, sorted' }),
    created_at: timestamp,
    disabled: z
      .boolean()
      .meta({ description: 'An operator disabled the account; its credentials are refused meanwhile' }),
    email_confirmed: z
      .boolean()
      .meta({ description: 'False only while SERVICE_AUTH_EMAIL_CONFIRMATION awaits the address’s confirmation' }),
    mfa_enabled: z.boolean().meta({ description: 'The user has a second factor' }),
  })
  .meta({ id: 'User' }) satisfies z.ZodType<PublicUser>;

/** `POST /register`, `POST /login`, `GET /me`. */
export const userResponse = z.object({ user: userSchema }).meta({ id: 'UserResponse' });

export const sessionViewSchema = z
  .object({
    id: z.string().meta({ description: 'The public id: DELETE /api/sessions/{id}. Not the cookie, and no way to it' }),
    created_at: timestamp,
    last_seen_at: timestamp.meta({ description: 'Within a minute' }),
    user_agent: z.string().nullable().meta({ description: 'The User-Agent of the login' }),
    current: z.boolean().meta({ description: 'The session of this request' }),
  })
  .meta({ id: 'Session' }) satisfies z.ZodType<SessionView>;

/** `GET /api/sessions`: the caller's live sessions, oldest first. */
export const sessionListResponse = z.object({ sessions: z.array(sessionViewSchema) }).meta({ id: 'SessionList' });

/** One of the caller's own audit records (`GET /api/security-log`): never its hash, nor anyone else's. */
export const securityEventSchema = z
  .object({
    id: z.number().int().meta({ description: 'The record’s id; pass the last one as `before` for the next page' }),
    at: timestamp,
    type: z.enum(AUDIT_TYPES),
    outcome: z.enum(['success', 'failure']),
    email: z.string().nullable(),
    ip: z.string().nullable().meta({ description: 'The client address (IPv6 per /64)' }),
    user_agent: z.string().nullable(),
    reason: z.string().nullable().meta({ description: 'The problem code of a failure' }),
    detail: z
      .record(z.string(), z.union([z.string(), z.number(), z.boolean(), z.null()]))
      .meta({ description: 'Ids and names (token, session, role) and the actor: http, cli or api' }),
  })
  .meta({ id: 'SecurityEvent' });

/** `GET /api/security-log`: 50 a page, newest first. */
export const securityLogResponse = z
  .object({
    events: z.array(securityEventSchema),
    next: z.number().int().nullable().meta({ description: 'The `before` of the next page, or null on the last' }),
  })
  .meta({ id: 'SecurityLog' });

/** `POST /forgot`, `POST /reset`, and the other answers that only say what happens next. */
export const messageResponse = z.object({ message: z.string() }).meta({ id: 'Message' });

const scopes = z
  .array(z.string().regex(SCOPE))
  .meta({ description: 'The scopes the token carries; none means every scope' });
const tokenOrg = z
  .object({ id: z.number().int().positive(), slug: z.string() })
  .nullable()
  .meta({
    id: 'TokenOrg',
    description:
      'The organization the token is bound to (it is refused in any other; outside every ' +
      'organization it acts with its user’s global roles only), or null',
  });

export const tokenViewSchema = z
  .object({
    id: z.string().meta({ description: 'The public identifier: DELETE /api/tokens/{id}' }),
    name: z.string(),
    scopes,
    org: tokenOrg,
    created_at: timestamp,
    last_used_at: timestamp.nullable(),
    expires_at: timestamp.nullable().meta({ description: 'Null for an imported legacy token' }),
    legacy: z.boolean().meta({ description: 'Imported from an unsalted SHA-256 (never expires)' }),
  })
  .meta({ id: 'Token' }) satisfies z.ZodType<TokenView>;

/** `GET /api/tokens`: the caller's tokens that are not revoked, oldest first. */
export const tokenListResponse = z.object({ tokens: z.array(tokenViewSchema) }).meta({ id: 'TokenList' });

/** `POST /api/tokens`: the only time the raw token is shown. */
export function createdTokenSchema(prefix: string) {
  return z
    .object({
      id: z.string(),
      name: z.string(),
      token: z
        .string()
        .regex(new RegExp(`^${prefix}_[A-Za-z0-9]+_[A-Za-z0-9]+$`))
        .meta({
          description:
            'The raw token, `<prefix>_<id>_<secret><check>`: send it as `Authorization: Bearer <token>`; it is never shown again',
        }),
      scopes,
      org: tokenOrg,
      created_at: timestamp,
      expires_at: timestamp,
    })
    .meta({ id: 'CreatedToken' }) satisfies z.ZodType<CreatedToken>;
}

const names = z.union([z.string(), z.array(z.string())]);

/** A role rule as CASL serialises it, the user's placeholders filled in. */
const ruleSchema = z
  .object({
    action: names,
    subject: names,
    conditions: z.record(z.string(), z.unknown()).optional(),
    fields: names.optional(),
    inverted: z.boolean().optional(),
    reason: z.string().optional(),
  })
  .meta({ id: 'Rule' });

/** CASL's `packRules` form: `[actions, subjects, conditions|0, inverted 1|0, fields|0, reason]`, trailing defaults left off. */
const packedRuleSchema = z
  .tuple([
    z.string(),
    z.string(),
    z.union([z.record(z.string(), z.unknown()), z.literal(0)]).optional(),
    z.union([z.literal(0), z.literal(1)]).optional(),
    z.union([z.string(), z.literal(0)]).optional(),
    z.string().optional(),
  ])
  .meta({ id: 'PackedRule' });

/** `GET /api/abilities`: the rules as they are, or packed with `?packed=true`. */
export const rulesResponse = z
  .object({ rules: z.union([z.array(ruleSchema), z.array(packedRuleSchema)]) })
  .meta({ id: 'Rules', description: 'For `createMongoAbility(rules)` (after `unpackRules` when packed)' });

/** `GET /openapi.json`: an OpenAPI 3.1 document (this one). */
export const openApiResponse = z
  .looseObject({
    openapi: z.string().regex(/^3\.1\.\d+$/),
    info: z.looseObject({ title: z.string(), version: z.string() }),
    paths: z.record(z.string(), z.unknown()),
  })
  .meta({ id: 'OpenApiDocument' });
