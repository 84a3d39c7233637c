/**
 * `auth.tokens`: personal access tokens for the HTTP API (`/api/tokens`) and the CLI. The raw
 * value exists only in the creation result; what is stored is its PBKDF2 hash (or, for imported
 * legacy tokens, the SHA-256 the application kept before).
 */
import { LockMode, UniqueConstraintViolationException } from '@mikro-orm/core';
import type { AuthConfig } from '../config.js';
import { AuthError, ValidationError } from '../errors.js';
import { ApiToken, User } from '../storage/entities/index.js';
import type { EntityManager } from '../storage/orm.js';
import type { Storage } from '../storage/storage.js';
import type { UserRef, UserService } from '../users/service.js';
import type { DerivationPool } from './derivations.js';
import { makeToken, randomBase62 } from './format.js';
import { LEGACY_ALGORITHM, newSalt, PBKDF2_ALGORITHM, PBKDF2_ITERATIONS } from './hashing.js';
import type { TokenRecord, TokenVerifier } from './verifier.js';

/** A token as listed: never a hash, never the raw value. */
export interface TokenView {
  id: string;
  name: string;
  scopes: string[];
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
  created_at: string;
  expires_at: string;
}

export interface NewToken {
  name: unknown;
  /** Defaults to SERVICE_AUTH_TOKEN_DEFAULT_EXPIRY_DAYS. */
  expiresInDays?: unknown;
  /** No scopes (the default) means every scope. */
  scopes?: unknown;
}

const SCOPE = /^[a-z0-9:._-]{1,64}$/;
const SHA256_HEX = /^[0-9a-f]{64}$/;
const DAY_MS = 86_400_000;

export class TokenService {
  constructor(
    private readonly config: AuthConfig['tokens'],
    private readonly storage: Storage,
    private readonly users: UserService,
    private readonly pool: DerivationPool,
    private readonly verifier: TokenVerifier,
  ) {}

  /** PBKDF2 derivations this process has run (creation and first verifications). */
  get derivations(): number {
    return this.pool.derivations;
  }

  /**
   * Creates a token for the user. Validates every field at once (400 `bad_request`), then the
   * per-user cap of active tokens (409 `token_limit`).
   */
  async create(owner: UserRef, input: NewToken): Promise<CreatedToken> {
    const { name, expiresInDays, scopes } = this.validate(input);
    const user = await this.users.get(owner);
    const em = await this.storage.em();
    // Checked before the derivation too, so that a user at the cap cannot spend CPU on refusals.
    await this.assertBelowCap(em, user.id);
    const { token, id } = makeToken(this.config.prefix);
    const salt = newSalt();
    const hash = await this.pool.derive(token, salt, PBKDF2_ITERATIONS);
    const now = new Date();
    const expiresAt = new Date(now.getTime() + expiresInDays * DAY_MS);

    await this.storage.transaction(em, async (tx) => {
      // Locks the owner's row (SELECT … FOR UPDATE on PostgreSQL; SQLite serialises writers), so
      // two concurrent creations cannot both pass the cap.
      await tx.findOne(User, { id: user.id }, { lockMode: LockMode.PESSIMISTIC_WRITE });
      await this.assertBelowCap(tx, user.id);
      tx.create(ApiToken, {
        publicId: id,
        user: user.id,
        name,
        algorithm: PBKDF2_ALGORITHM,
        hash,
        salt,
        iterations: PBKDF2_ITERATIONS,
        scopes,
        createdAt: now,
        expiresAt,
      });
    });
    return { id, name, token, scopes, created_at: now.toISOString(), expires_at: expiresAt.toISOString() };
  }

  /** Tokens that are not revoked, oldest first, with their owner's email; optionally one user's or legacy only. */
  async list(filter: { user?: UserRef; legacy?: boolean } = {}): Promise<(TokenView & { email: string })[]> {
    const em = await this.storage.em();
    const where: Record<string, unknown> = { revokedAt: null };
    if (filter.user !== undefined) where['user'] = (await this.users.get(filter.user)).id;
    if (filter.legacy) where['algorithm'] = LEGACY_ALGORITHM;
    const rows = await em.find(ApiToken, where, { populate: ['user'], orderBy: { id: 'asc' } });
    return rows.map((row) => ({ ...toView(row), email: row.user.email }));
  }

  /**
   * Revokes a token. With `owner`, a token of anybody else is a 404, exactly like an unknown id:
   * no way to learn which ids exist.
   */
  async revoke(publicId: string, owner?: UserRef): Promise<void> {
    const em = await this.storage.em();
    const where: Record<string, unknown> = { publicId, revokedAt: null };
    if (owner !== undefined) where['user'] = (await this.users.get(owner)).id;
    const revoked = await em.nativeUpdate(ApiToken, where, { revokedAt: new Date() });
    if (revoked === 0) throw new AuthError('not_found', `No token with id ${JSON.stringify(publicId)}`);
    this.verifier.evict(publicId);
  }

  /**
   * Brings in a token made before PBKDF2: its unsalted hex SHA-256, as the application stored it.
   * It stays valid as it is (never rewritten) and lists with `legacy: true`; no expiry.
   */
  async importLegacy(owner: UserRef, input: { sha256: string; name: unknown }): Promise<TokenView> {
    const errors: { field: string; message: string }[] = [];
    const hash = typeof input.sha256 === 'string' ? input.sha256.trim().toLowerCase() : '';
    if (!SHA256_HEX.test(hash)) errors.push({ field: 'sha256', message: 'must be 64 hexadecimal characters' });
    const name = validName(input.name, errors);
    if (errors.length) throw new ValidationError(errors);
    const user = await this.users.get(owner);
    const em = await this.storage.em();
    const alreadyImported = () => new ValidationError([{ field: 'sha256', message: 'this token was already imported' }]);
    if (await em.count(ApiToken, { hash })) throw alreadyImported();
    try {
      const row = await this.storage.transaction(em, async (tx) =>
        tx.create(ApiToken, { publicId: randomBase62(16), user: user.id, name, algorithm: LEGACY_ALGORITHM, hash, scopes: [] }),
      );
      return toView(row);
    } catch (error) {
      // Two imports of one hash at once: the unique index lets one through.
      if (error instanceof UniqueConstraintViolationException) throw alreadyImported();
      throw error;
    }
  }

  /** The record of a valid raw token, or null (see TokenVerifier). */
  verify(raw: string, beforeDerivation?: () => Promise<void>): Promise<TokenRecord | null> {
    return this.verifier.verify(raw, beforeDerivation);
  }

  private async assertBelowCap(em: EntityManager, userId: number): Promise<void> {
    if ((await em.count(ApiToken, activeTokensOf(userId))) >= this.config.maxPerUser) {
      throw new AuthError('token_limit', `You already have ${this.config.maxPerUser} active tokens; revoke one first`);
    }
  }

  private validate(input: NewToken): { name: string; expiresInDays: number; scopes: string[] } {
    const errors: { field: string; message: string }[] = [];
    const name = validName(input.name, errors);
    let expiresInDays = this.config.defaultExpiryDays;
    if (input.expiresInDays !== undefined && input.expiresInDays !== null && input.expiresInDays !== '') {
      const days = typeof input.expiresInDays === 'string' && /^\d+$/.test(input.expiresInDays) ? Number(input.expiresInDays) : input.expiresInDays;
      if (typeof days !== 'number' || !Number.isInteger(days) || days < 1 || days > this.config.maxExpiryDays) {
        errors.push({ field: 'expires_in_days', message: `must be an integer from 1 to ${this.config.maxExpiryDays}` });
      } else {
        expiresInDays = days;
      }
    }
    let scopes: string[] = [];
    if (input.scopes !== undefined && input.scopes !== null) {
      const list = input.scopes;
      if (!Array.isArray(list) || !list.every((scope) => typeof scope === 'string' && SCOPE.test(scope))) {
        errors.push({ field: 'scopes', message: 'must be a list of scopes matching [a-z0-9:._-]{1,64}' });
      } else {
        scopes = [...new Set(list as string[])];
      }
    }
    if (errors.length) throw new ValidationError(errors);
    return { name, expiresInDays, scopes };
  }
}

function validName(value: unknown, errors: { field: string; message: string }[]): string {
  const name = typeof value === 'string' ? value.trim() : '';
  if (name.length < 1 || name.length > 100) errors.push({ field: 'name', message: 'must be 1 to 100 characters' });
  // Names end up in tables and terminals (`auth list-tokens`): no escape sequences.
  else if (/[\u0000-\u001f\u007f-\u009f]/.test(name)) errors.push({ field: 'name', message: 'must not contain control characters' });
  return name;
}

function activeTokensOf(userId: number) {
  return { user: userId, revokedAt: null, $or: [{ expiresAt: null }, { expiresAt: { $gt: new Date() } }] };
}

function toView(row: ApiToken): TokenView {
  return {
    id: row.publicId,
    name: row.name,
    scopes: row.scopes,
    created_at: row.createdAt.toISOString(),
    last_used_at: row.lastUsedAt?.toISOString() ?? null,
    expires_at: row.expiresAt?.toISOString() ?? null,
    legacy: row.algorithm === LEGACY_ALGORITHM,
  };
}
