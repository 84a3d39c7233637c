import { defineEntity, type InferEntity } from '@mikro-orm/core';

const p = defineEntity.properties;

/**
 * A WebAuthn challenge handed to a browser, until its answer comes back: single use (deleted by
 * the answer that uses it) and short-lived. A registration's names its user; a sign-in's does not
 * (the passkey says whose it is).
 */
export const WebauthnChallenge = defineEntity({
  name: 'WebauthnChallenge',
  tableName: 'service_auth_webauthn_challenges',
  properties: {
    challenge: p.string().length(128).primary(),
    /** `register` or `login`. */
    purpose: p.string().length(16),
    userId: p.integer().nullable(),
    expiresAt: p.datetime(),
  },
});

export type WebauthnChallenge = InferEntity<typeof WebauthnChallenge>;
