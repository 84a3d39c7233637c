/** What the public account endpoints share (account.ts, login-steps.ts, links.ts): the notes of their descriptions. */
import type { AuthConfig } from '../../config/config.js';
import type { ErrorCode } from '../../errors.js';
import type { Rate } from '../../config/rates.js';
import { limitNote } from '../openapi/operations.js';

export const FORM = 'A browser’s form (urlencoded, preferring HTML, without Authorization) is answered with pages: ';

export const SAME_SITE = 'It must come from this site (Sec-Fetch-Site or Origin), with or without a cookie.';

/** A limit per client address. */
export function perAddress(config: AuthConfig, rate: Rate, key: string): string {
  return limitNote(config, rate, 'per client address', key);
}

/** Refused to an address awaiting confirmation, when confirmation is on. */
export function unconfirmed(config: AuthConfig): ErrorCode[] {
  return config.emailConfirmation.enabled ? ['email_unconfirmed'] : [];
}
