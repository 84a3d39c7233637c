/**
 * A token as the service's callers meet it: what creating one takes and gives (the only time the
 * raw value is seen), a token as listed (never a hash, never the raw value), and the other rooms
 * the service asks (who owns tokens, which organizations they may be bound to).
 */
import { ApiToken } from '../storage/entities/index.js';
import type { UserRef } from '../storage/user-ref.js';
import { LEGACY_ALGORITHM } from './hashing.js';

/** The organization a token is bound to. */
export interface TokenOrg {
  id: number;
  slug: string;
}

/** A token as listed: never a hash, never the raw value. */
export interface TokenView {
  id: string;
  name: string;
  scopes: string[];
  /** The organization it is bound to, or null: it acts in every organization of its user. */
  org: TokenOrg | null;
  created_at: string;
  last_used_at: string | null;
  expires_at: string | null;
  legacy: boolean;
}

/** The creation result: the only time the raw token is seen. */
export interface CreatedToken {
  id: string;
  name: string;
  token: string;
  scopes: string[];
  org: TokenOrg | null;
  created_at: string;
  expires_at: string;
}

export interface NewToken {
  /** 1 to 100 characters, no control, format or bidi characters. */
  name: string;
  /** Whole days, 1 to SERVICE_AUTH_TOKEN_MAX_EXPIRY_DAYS; default SERVICE_AUTH_TOKEN_DEFAULT_EXPIRY_DAYS. */
  expiresInDays?: number | undefined;
  /** Each `[a-z0-9:._-]{1,64}`; none (the default) means every scope. */
  scopes?: readonly string[] | undefined;
  /** An organization of the user's (its id or slug) to bind the token to; none: every organization. */
  org?: string | number | undefined;
}

/** Who tokens belong to: the users room finds them (a 404 `not_found` when there is none). */
export interface TokenOwners {
  get(ref: UserRef): Promise<{ readonly id: number }>;
}

/** The organizations a token may be bound to (the `auth.orgs` service): one by id or slug, and a membership. */
export interface TokenOrgs {
  find(idOrSlug: string | number): Promise<TokenOrg | null>;
  membership(orgId: number, userId: number): Promise<object | null>;
}

export function toView(row: ApiToken): TokenView {
  return {
    id: row.publicId,
    name: row.name,
    scopes: row.scopes,
    org: row.org ? { id: row.org.id, slug: row.org.slug } : null,
    created_at: row.createdAt.toISOString(),
    last_used_at: row.lastUsedAt?.toISOString() ?? null,
    expires_at: row.expiresAt?.toISOString() ?? null,
    legacy: row.algorithm === LEGACY_ALGORITHM,
  };
}
