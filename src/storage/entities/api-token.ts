import { defineEntity, type InferEntity } from '@mikro-orm/core';
import { Organization } from './organization.js';
import { User } from './user.js';

const p = defineEntity.properties;

/**
 * A personal access token. Only a hash is kept: PBKDF2 with the salt and iteration count of the
 * row (so a later increase leaves old rows valid), or, for legacy tokens, unsalted SHA-256.
 */
export const ApiToken = defineEntity({
  name: 'ApiToken',
  tableName: 'service_auth_api_tokens',
  properties: {
    id: p.integer().primary().autoincrement(),
    /** The `<id>` part of the token and of `DELETE /api/tokens/<id>`. */
    publicId: p.string().length(32).unique(),
    user: () => p.manyToOne(User).deleteRule('cascade').updateRule('cascade').index(),
    name: p.string().length(100),
    /** The organization the token is bound to, or null for every organization of its user. Goes with it. */
    org: () => p.manyToOne(Organization).deleteRule('cascade').updateRule('cascade').nullable().index(),
    /** `pbkdf2-sha256` or, for imported legacy tokens, `sha256`. */
    algorithm: p.string().length(32),
    /** Hex digest; unique, and indexed so that a legacy token is found by its SHA-256. */
    hash: p.string().length(128).unique('service_auth_api_tokens_hash_unique'),
    salt: p.string().length(64).nullable(),
    iterations: p.integer().nullable(),
    scopes: p.json<string[]>(),
    createdAt: p.datetime().onCreate(() => new Date()),
    lastUsedAt: p.datetime().nullable(),
    expiresAt: p.datetime().nullable(),
    revokedAt: p.datetime().nullable(),
  },
});

export type ApiToken = InferEntity<typeof ApiToken>;
