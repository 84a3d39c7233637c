import { defineEntity, type InferEntity } from '@mikro-orm/core';

const p = defineEntity.properties;

/**
 * A sign-in through an identity provider between its start and the provider's answer (src/sso/):
 * kept by the SHA-256 of the random id in the browser's cookie, so that only the browser that
 * started may finish; single use (the answer deletes it) and ten minutes long. The PKCE verifier
 * and the nonce are secrets only until the answer, which deletes them.
 */
export const SsoAttempt = defineEntity({
  name: 'SsoAttempt',
  tableName: 'service_auth_sso_attempts',
  properties: {
    idHash: p.string().length(64).primary(),
    provider: p.string().length(32),
    state: p.string().length(128),
    nonce: p.string().length(128).nullable(),
    codeVerifier: p.string().length(128),
    /** Where to go after: a same-site path. */
    next: p.string().length(2048).nullable(),
    /** Set when a signed-in user links the identity rather than signing in with it. */
    linkUserId: p.integer().nullable(),
    expiresAt: p.datetime(),
  },
});

export type SsoAttempt = InferEntity<typeof SsoAttempt>;
