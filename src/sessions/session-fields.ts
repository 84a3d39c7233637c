/** What a new session row is made of besides its secret: its public id and the login's `User-Agent`. */
import { randomBytes } from 'node:crypto';

const MAX_USER_AGENT = 512;

/** 12 random bytes, base64url: 16 characters, unrelated to the cookie's secret. */
export function newPublicId(): string {
  return randomBytes(12).toString('base64url');
}

/** The login's `User-Agent`, for people to recognise their devices by: no control characters, bounded. */
export function cleanUserAgent(userAgent: string | undefined): string | null {
  // eslint-disable-next-line no-control-regex
  const cleaned = userAgent
    ?.replace(/[\u0000-\u001f\u007f-\u009f]/g, ' ')
    .trim()
    .slice(0, MAX_USER_AGENT);
  return cleaned ? cleaned : null;
}
