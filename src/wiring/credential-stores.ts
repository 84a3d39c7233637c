/**
 * The first step of wiring.ts: the owners of the credential tables (sessions, personal access
 * tokens, reset and confirmation tokens, login tickets), the user lookup and its cache, and the
 * password changes that end those credentials. Redis is made here too, because besides the rate
 * limits it may share which tokens verified. Each owner is made once and handed to the later steps.
 */
import type { AuthParts } from '../wiring.js';
import { LoginTickets } from '../mfa/login-tickets.js';
import { SharedRedis } from '../rate-limit/shared-redis.js';
import { SessionCookie } from '../sessions/cookie.js';
import { SessionStore } from '../sessions/store.js';
import { FAST_PBKDF2_ITERATIONS, PBKDF2_ITERATIONS } from '../tokens/hashing.js';
import { TokenService } from '../tokens/service.js';
import { SharedVerifications } from '../tokens/shared-verifications.js';
import { TokenVerifier } from '../tokens/verifier.js';
import { EmailTokens } from '../users/email-tokens.js';
import { UserLookup } from '../users/lookup.js';
import { PasswordChanges } from '../users/password-changes.js';
import { ResetTokens } from '../users/reset-tokens.js';
import { UserCache } from '../users/user-cache.js';

/** The parts this step makes, and what only the later steps need (the cache, the login tickets). */
export type CredentialStores = Pick<
  AuthParts,
  'lookup' | 'sessions' | 'cookie' | 'redis' | 'verifier' | 'tokens' | 'resetTokens' | 'emailTokens' | 'passwords'
> & { cache: UserCache; loginTickets: LoginTickets };

/** Needs of `parts` what is made before it: config, storage, audit, pluggable, hasher, derivations, scopes. */
export function wireCredentialStores(parts: AuthParts): CredentialStores {
  const { config, storage, audit, pluggable } = parts;
  const lookup = new UserLookup(storage);
  const cache = new UserCache(lookup, storage.changes);
  const sessions = new SessionStore(storage, config.sessions, audit);
  const cookie = new SessionCookie(config.sessions);
  // Redis carries the rate limits and, with a secret to key them, which tokens verified.
  const sharesRedis = config.redisUrl !== undefined && (config.rateLimit.enabled || config.secret !== undefined);
  const redis = sharesRedis
    ? new SharedRedis(config.redisUrl!, config.redisPrefix, pluggable, {
        rateLimits: config.rateLimit.enabled,
        verifiedTokens: config.secret !== undefined,
      })
    : undefined;
  const shared = redis && config.secret ? new SharedVerifications(redis.client, config.secret) : undefined;
  const verifier = new TokenVerifier(storage, parts.derivations, shared);
  const tokenIterations = config.insecureFastHashing ? FAST_PBKDF2_ITERATIONS : PBKDF2_ITERATIONS;
  const tokens = new TokenService(
    { ...config.tokens, iterations: tokenIterations },
    storage,
    lookup,
    parts.derivations,
    verifier,
    audit,
    () => parts.orgs,
    parts.scopes,
  );
  const resetTokens = new ResetTokens(storage, config.resetTokenTtlSeconds);
  const emailTokens = new EmailTokens(storage, config.emailConfirmation.tokenTtlSeconds);
  const loginTickets = new LoginTickets(storage);
  const passwords = new PasswordChanges(parts.hasher, config.passwords, {
    sessions,
    tokens,
    resetTokens,
    loginTickets,
  });
  return {
    lookup,
    cache,
    sessions,
    cookie,
    redis,
    verifier,
    tokens,
    resetTokens,
    emailTokens,
    loginTickets,
    passwords,
  };
}
