import { defineEntity, type InferEntity } from '@mikro-orm/core';
import { User } from './user.js';

const p = defineEntity.properties;

/**
 * A passkey (WebAuthn credential) of a user (src/mfa/passkeys.ts): its credential id and public
 * key as base64url, the signature counter it last reported, and how it may be reached. A public
 * key is no secret; the private key never leaves the user's device.
 */
export const Passkey = defineEntity({
  name: 'Passkey',
  tableName: 'service_auth_passkeys',
  properties: {
    credentialId: p.string().length(1400).primary(),
    user: () => p.manyToOne(User).deleteRule('cascade').updateRule('cascade').index(),
    name: p.string().length(100),
    publicKey: p.text(),
    counter: p.integer(),
    /** Comma-separated (`internal,hybrid`), as the browser reported them. */
    transports: p.string().length(200),
    createdAt: p.datetime().onCreate(() => new Date()),
    lastUsedAt: p.datetime().nullable(),
  },
});

export type Passkey = InferEntity<typeof Passkey>;
