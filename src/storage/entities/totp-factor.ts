import { defineEntity, type InferEntity } from '@mikro-orm/core';
import { User } from './user.js';

const p = defineEntity.properties;

/**
 * A user's TOTP second factor (src/mfa/). Pending until a code confirms it (`confirmedAt`). The
 * secret is sealed with SERVICE_AUTH_SECRET when one is set (AES-256-GCM, `v1:`…), else stored as
 * it is (`plain:`…). `lastStep` is the 30-second step of the last code accepted: a code is accepted
 * once, and no older one after it.
 */
export const TotpFactor = defineEntity({
  name: 'TotpFactor',
  tableName: 'service_auth_totp',
  properties: {
    user: () => p.oneToOne(User).owner().primary().deleteRule('cascade'),
    secret: p.string().length(200),
    createdAt: p.datetime().onCreate(() => new Date()),
    confirmedAt: p.datetime().nullable(),
    lastStep: p.integer(),
  },
});

export type TotpFactor = InferEntity<typeof TotpFactor>;
