/**
 * `POST /api/tokens`: as JSON (`expires_in_days` a number, `scopes` a list), and as the tokens
 * page's form sends it (every field text: the days as digits, the scopes separated by spaces or
 * commas, the organization's id or slug, empty for none). Both yield the token service's input, by the field rules of tokens/fields.ts.
 */
import { z } from 'zod';
import { expiryDays, tokenFields } from '../../tokens/fields.js';
import { isOrgRef } from '../../orgs/names.js';
import type { NewToken } from '../../tokens/service.js';

export function tokenSchemas(maxExpiryDays: number) {
  const { name: tokenName, scopes: tokenScopes, org: tokenOrg } = tokenFields();
  const days = expiryDays(maxExpiryDays).meta({
    description: 'Whole days until it expires; by default SERVICE_AUTH_TOKEN_DEFAULT_EXPIRY_DAYS',
  });
  const json = z
    .object({
      name: tokenName,
      expires_in_days: days.nullish(),
      scopes: tokenScopes.nullish(),
      org: tokenOrg.nullish(),
    })
    .meta({ id: 'NewTokenRequest' })
    .transform((body): NewToken => ({
      name: body.name,
      expiresInDays: body.expires_in_days ?? undefined,
      scopes: body.scopes ?? undefined,
      org: body.org ?? undefined,
    }));
  const form = z
    .object({
      name: tokenName,
      expires_in_days: z
        .string()
        .optional()
        .meta({
          description: `Whole days as digits, 1 to ${maxExpiryDays}; empty for the default`,
          pattern: '^\\s*\\d*\\s*$',
        })
        .transform((text) =>
          text === undefined || text.trim() === '' ? undefined : /^\d+$/.test(text.trim()) ? Number(text) : Number.NaN,
        )
        .pipe(days.optional()),
      scopes: z
        .union([z.string(), z.array(z.string())])
        .optional()
        .meta({
          description:
            'Scopes separated by spaces or commas, or one field per scope (the checkboxes of the ' +
            'defined scopes), each [a-z0-9:._-]{1,64}; empty for every scope',
        })
        .transform((text) => (Array.isArray(text) ? text : text?.split(/[\s,]+/).filter(Boolean)))
        .pipe(tokenScopes.optional()),
      org: z
        .string()
        .optional()
        .meta({ description: 'An organization of the user’s, its id or slug, to bind the token to; empty for none' })
        // The token service checks it (tokenOrg, then a membership).
        .transform((text) => (text === undefined || text.trim() === '' ? undefined : text.trim()))
        .refine(
          (text) => text === undefined || isOrgRef(text),
          'must be an organization id or slug, as in its URL (7, acme)',
        ),
    })
    .meta({ id: 'NewTokenForm' })
    .transform((body): NewToken => ({
      name: body.name,
      expiresInDays: body.expires_in_days,
      scopes: body.scopes,
      org: body.org,
    }));
  return { json, form };
}
