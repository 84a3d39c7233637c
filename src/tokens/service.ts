/**
 * `auth.tokens`: personal access tokens for the HTTP API (`/api/tokens`) and the CLI. The raw
 * value exists only in the creation result; what is stored is its PBKDF2 hash (or, for imported
 * legacy tokens, the SHA-256 the application kept before).
 */
import { LockMode, UniqueConstraintViolationException } from '@mikro-orm/core';
import type { AuditLog } from '../audit/audit-log.js';
import type { AuthConfig } from '../config/config.js';
import { AuthError, ValidationError } from '../errors.js';
import { ApiToken, User } from '../storage/entities/index.js';
import type { EntityManager } from '../storage/orm.js';
import type { Storage, Transaction } from '../storage/storage.js';
import type { UserRef } from '../storage/user-ref.js';
import { assertDefinedScopes, legacyImportSchema, newTokenSchema, type TokenScopes } from './fields.js';
import type { DerivationPool } from './derivations.js';
import { makeToken, randomBase62 } from './format.js';
import { LEGACY_ALGORITHM, newSalt, PBKDF2_ALGORITHM } from './hashing.js';
import type { TokenRecord, TokenVerifier } from './verifier.js';
import {
  toView,
  type CreatedToken,
  type NewToken,
  type TokenOrg,
  type TokenOrgs,
  type TokenOwners,
  type TokenView,
} from './token-views.js';

export type { CreatedToken, NewToken, TokenOrg, TokenOrgs, TokenOwners, TokenView } from './token-views.js';

/** Public ids are 16 base62 characters; anything else names no token, and costs no query. */
const PUBLIC_ID = /^[A-Za-z0-9]{1,32}$/;
const DAY_MS = 86_400_000;

export class TokenService {
  /** newTokenSchema's, built with the first token made. */
  private newToken: ReturnType<typeof newTokenSchema> | undefined;

  constructor(
    private readonly config: AuthConfig['tokens'] & { readonly iterations: number }, // iterations: of new tokens' PBKDF2
    private readonly storage: Storage,
    private readonly owners: TokenOwners,
    private readonly pool: DerivationPool,
    private readonly verifier: TokenVerifier,
    private readonly audit: AuditLog,
    /** A function: the organizations are built after the tokens. */
    private readonly orgs: () => TokenOrgs,
    private readonly scopes?: TokenScopes,
  ) {}

  /**
   * Creates a token for the user. Validates every field at once (400 `bad_request`), then the
   * organization (400 `bad_request` on `org` for one that does not exist or the user is not a
   * member of, alike), then the per-user cap of active tokens (409 `token_limit`). An undefined
   * scope, once the application defines any, is 422 `unknown_scope`. */
  async create(owner: UserRef, input: NewToken): Promise<CreatedToken> {
    const parsed = (this.newToken ??= newTokenSchema(this.config.maxExpiryDays)).safeParse(input);
    if (!parsed.success) throw ValidationError.fromIssues(parsed.error.issues);
    const { name, expiresInDays = this.config.defaultExpiryDays, scopes = [] } = parsed.data;
    assertDefinedScopes(scopes, this.scopes);
    const user = await this.owners.get(owner);
    const org = parsed.data.org === undefined ? null : await this.memberOrg(parsed.data.org, user.id);
    const em = await this.storage.em();
    // Checked before the derivation too, so that a user at the cap cannot spend CPU on refusals.
    await this.assertBelowCap(em, user.id);
    const { token, id } = makeToken(this.config.prefix);
    const salt = newSalt();
    const hash = await this.pool.derive(token, salt, this.config.iterations);
    const now = new Date();
    const expiresAt = new Date(now.getTime() + expiresInDays * DAY_MS);

    await this.storage.transaction(em, async (tx) => {
      // Locks the owner's row (SELECT … FOR UPDATE on PostgreSQL; SQLite serialises writers), so
      // two concurrent creations cannot both pass the cap.
      await tx.em.findOne(User, { id: user.id }, { lockMode: LockMode.PESSIMISTIC_WRITE });
      await this.assertBelowCap(tx.em, user.id);
      this.audit.record(tx, {
        type: 'token_created',
        userId: user.id,
        detail: { token: id, name, expires_at: expiresAt.toISOString(), ...(org && { org: org.id }) },
      });
      tx.em.create(ApiToken, {
        publicId: id,
        user: user.id,
        name,
        algorithm: PBKDF2_ALGORITHM,
        hash,
        salt,
        iterations: this.config.iterations,
        scopes,
        org: org?.id ?? null,
        createdAt: now,
        expiresAt,
      });
    });
    return { id, name, token, scopes, org, created_at: now.toISOString(), expires_at: expiresAt.toISOString() };
  }

  /** The organization (by id or slug) if the user is a member of it; one that does not exist reads the same. */
  private async memberOrg(idOrSlug: string | number, userId: number): Promise<TokenOrg> {
    const orgs = this.orgs();
    const org = await orgs.find(idOrSlug);
    if (!org || !(await orgs.membership(org.id, userId)))
      throw new ValidationError([{ field: 'org', message: 'is no organization you are a member of' }]);
    return { id: org.id, slug: org.slug };
  }

  /** Tokens that are not revoked, oldest first, with their owner's email; optionally one user's or legacy only. */
  async list(filter: { user?: UserRef; legacy?: boolean } = {}): Promise<(TokenView & { email: string })[]> {
    const em = await this.storage.em();
    const where: Record<string, unknown> = { revokedAt: null };
    if (filter.user !== undefined) where['user'] = (await this.owners.get(filter.user)).id;
    if (filter.legacy) where['algorithm'] = LEGACY_ALGORITHM;
    const rows = await em.find(ApiToken, where, { populate: ['user', 'org'], orderBy: { id: 'asc' } });
    return rows.map((row) => ({ ...toView(row), email: row.user.email }));
  }

  /**
   * Revokes a token. With `owner`, a token of anybody else is a 404, exactly like an unknown id:
   * no way to learn which ids exist.
   */
  async revoke(publicId: string, owner?: UserRef): Promise<void> {
    const notFound = () => new AuthError('not_found', `No token with id ${JSON.stringify(publicId)}`);
    if (typeof publicId !== 'string' || !PUBLIC_ID.test(publicId)) throw notFound();
    const em = await this.storage.em();
    const where: Record<string, unknown> = { publicId, revokedAt: null };
    if (owner !== undefined) where['user'] = (await this.owners.get(owner)).id;
    await this.storage.transaction(em, async (tx) => {
      const row = await tx.em.findOne(ApiToken, where, { fields: ['user'] });
      if (!row) throw notFound();
      await tx.em.nativeUpdate(ApiToken, { publicId }, { revokedAt: new Date() });
      await this.storage.changes.note(tx.em, [row.user.id]);
      this.audit.record(tx, { type: 'token_revoked', userId: row.user.id, detail: { token: publicId } });
    });
    this.verifier.evict(publicId);
  }

  /**
   * Revokes every token of a user inside the caller's transaction (a password reset); the
   * verifier forgets them once it commits.
   */
  async revokeAllOf(tx: Transaction, userId: number): Promise<void> {
    const revoked = await tx.em.nativeUpdate(ApiToken, { user: userId, revokedAt: null }, { revokedAt: new Date() });
    if (revoked > 0) this.audit.record(tx, { type: 'token_revoked', userId, detail: { tokens: revoked } });
    await this.storage.changes.note(tx.em, [userId]);
    tx.afterCommit(() => this.verifier.evictUser(userId));
  }

  /** Deletes every token row of a user inside the caller's transaction (the account is being deleted). */
  async deleteAllOf(tx: Transaction, userId: number): Promise<void> {
    await tx.em.nativeDelete(ApiToken, { user: userId });
    await this.storage.changes.note(tx.em, [userId]);
    tx.afterCommit(() => this.verifier.evictUser(userId));
  }

  /**
   * Brings in a token made before PBKDF2: its unsalted hex SHA-256, as the application stored it.
   * It stays valid as it is (never rewritten) and lists with `legacy: true`; no expiry.
   */
  async importLegacy(owner: UserRef, input: { sha256: string; name: string }): Promise<TokenView> {
    const parsed = legacyImportSchema().safeParse(input);
    if (!parsed.success) throw ValidationError.fromIssues(parsed.error.issues);
    const { sha256: hash, name } = parsed.data;
    const user = await this.owners.get(owner);
    const em = await this.storage.em();
    const alreadyImported = () =>
      new ValidationError([{ field: 'sha256', message: 'this token was already imported' }]);
    if (await em.count(ApiToken, { hash })) throw alreadyImported();
    try {
      const row = await this.storage.transaction(em, async (tx) => {
        const publicId = randomBase62(16);
        this.audit.record(tx, {
          type: 'token_created',
          userId: user.id,
          detail: { token: publicId, name, legacy: true },
        });
        return tx.em.create(ApiToken, { publicId, user: user.id, name, algorithm: LEGACY_ALGORITHM, hash, scopes: [] });
      });
      return toView(row);
    } catch (error) {
      // Two imports of one hash at once: the unique index lets one through.
      if (error instanceof UniqueConstraintViolationException) throw alreadyImported();
      throw error;
    }
  }

  /** The record of a valid raw token, or null (see TokenVerifier). */
  verify(raw: string, beforeDerivation?: () => Promise<void>, client?: string): Promise<TokenRecord | null> {
    return this.verifier.verify(raw, beforeDerivation, client);
  }

  private async assertBelowCap(em: EntityManager, userId: number): Promise<void> {
    if ((await em.count(ApiToken, activeTokensOf(userId))) >= this.config.maxPerUser) {
      throw new AuthError('token_limit', `You already have ${this.config.maxPerUser} active tokens; revoke one first`);
    }
  }
}

function activeTokensOf(userId: number) {
  return { user: userId, revokedAt: null, $or: [{ expiresAt: null }, { expiresAt: { $gt: new Date() } }] };
}
