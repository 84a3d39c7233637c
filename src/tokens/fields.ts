/**
 * What a token's fields may hold, written once: the service checks them for every caller (the
 * HTTP API, the CLI, application code), and the HTTP API's request schemas and its OpenAPI
 * description are built from the same rules.
 */
import { z } from 'zod';
import { AuthError } from '../errors.js';
import { isOrgRef } from '../orgs/names.js';

export const SCOPE = /^[a-z0-9:._-]{1,64}$/;

/**
 * The fields' schemas, built with the first token checked rather than with the package: zod's
 * schemas cost a few milliseconds to build, which an application that never makes a token in
 * this process does not need to pay at its start.
 */
function buildFields() {
  /** 1 to 100 characters, and nothing that could hide or reorder what a table or terminal shows. */
  const name = z
    .string({ error: (issue) => (issue.input === undefined ? 'is required' : 'must be 1 to 100 characters') })
    .trim()
    .min(1, 'must be 1 to 100 characters')
    .max(100, 'must be 1 to 100 characters')
    // Control characters (escape sequences), format characters (bidi overrides, zero-width ones),
    // line and paragraph separators, and lone surrogates.
    .regex(/^[^\p{Cc}\p{Cf}\p{Zl}\p{Zp}\p{Cs}]*$/u, 'must not contain control, format or bidi characters')
    .meta({ description: 'What the token is for, shown in lists' });

  /** Scopes the token carries; none means every scope. Repeated scopes count once. */
  const SCOPES_MESSAGE = 'must be a list of scopes matching [a-z0-9:._-]{1,64}';
  const scopes = z
    .array(z.string({ error: SCOPES_MESSAGE }).regex(SCOPE, SCOPES_MESSAGE), { error: SCOPES_MESSAGE })
    .transform((scopes) => [...new Set(scopes)])
    .meta({ description: 'Scopes the token carries, each [a-z0-9:._-]{1,64}; none means every scope' });

  /**
   * The organization to bind a token to: its id or its slug, read as URLs read them (isOrgRef): a
   * string that no URL would take (` 23`, `23.0`, `007`) is refused rather than tidied into one. A
   * JSON number is taken by its value (`23.0` and `23` are the same number once parsed).
   */
  const ORG_MESSAGE = 'must be an organization id or slug, as in its URL (7, acme)';
  const org = z
    .union([z.number().int().positive().max(Number.MAX_SAFE_INTEGER), z.string().refine(isOrgRef, ORG_MESSAGE)], {
      error: ORG_MESSAGE,
    })
    .meta({
      description:
        'An organization the user is a member of (its id or slug): the token acts only there, and ' +
        'with global roles outside any organization',
    });

  /** A legacy token's unsalted SHA-256, as the application stored it: 64 hex characters (any case). */
  const legacyHash = z
    .string({ error: 'must be 64 hexadecimal characters' })
    .trim()
    .toLowerCase()
    .regex(/^[0-9a-f]{64}$/, 'must be 64 hexadecimal characters');

  return { name, scopes, org, legacyHash };
}

let fields: ReturnType<typeof buildFields> | undefined;
export const tokenFields = () => (fields ??= buildFields());

/** Whole days until the token expires, from 1 to the configured maximum. */
export function expiryDays(max: number) {
  return z
    .number({ error: `must be an integer from 1 to ${max}` })
    .int(`must be an integer from 1 to ${max}`)
    .min(1, `must be an integer from 1 to ${max}`)
    .max(max, `must be an integer from 1 to ${max}`);
}

/** The scopes the application defines (`auth.defineScope`): once there is one, a token may carry only those. */
export interface TokenScopes {
  readonly any: boolean;
  has(name: string): boolean;
}

/** 422 `unknown_scope` naming the scopes the application does not define, once it defines any. */
export function assertDefinedScopes(scopes: readonly string[], defined: TokenScopes | undefined): void {
  if (!defined?.any) return;
  const unknown = scopes.filter((scope) => !defined.has(scope));
  if (unknown.length > 0)
    throw new AuthError('unknown_scope', `no scope named ${unknown.map((scope) => JSON.stringify(scope)).join(', ')}`);
}

/** A legacy token's import, checked (the schema built with the first import, as buildFields says why). */
let legacyImport: z.ZodType<{ sha256: string; name: string }> | undefined;
export const legacyImportSchema = () =>
  (legacyImport ??= z.object({ sha256: tokenFields().legacyHash, name: tokenFields().name }));

/** The fields of a new token, checked for every caller (a JavaScript caller may pass anything). */
export function newTokenSchema(maxExpiryDays: number) {
  const { name, scopes, org } = tokenFields();
  return z.object({
    name,
    expiresInDays: expiryDays(maxExpiryDays).optional(),
    scopes: scopes.optional(),
    org: org.optional(),
  });
}
