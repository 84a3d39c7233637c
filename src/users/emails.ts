import { AuthError } from '../errors.js';

/**
 * The WHATWG definition of a valid email address (what `<input type="email">` accepts), which
 * rejects the exotic forms RFC 5322 allows but no mail system delivers to.
 */
const EMAIL_PATTERN =
  /^[a-zA-Z0-9.!#$%&'*+/=?^_`{|}~-]+@[a-zA-Z0-9](?:[a-zA-Z0-9-]{0,61}[a-zA-Z0-9])?(?:\.[a-zA-Z0-9](?:[a-zA-Z0-9-]{0,61}[a-zA-Z0-9])?)*$/;

export const MAX_EMAIL_LENGTH = 254;

/** Emails are trimmed, compared and stored lower-cased. */
export function normalizeEmail(email: string): string {
  return email.trim().toLowerCase();
}

/** The normalized email, or a 422 `invalid_email`. */
export function validEmail(email: string): string {
  const normalized = normalizeEmail(email);
  if (normalized.length > MAX_EMAIL_LENGTH || !EMAIL_PATTERN.test(normalized)) {
    throw new AuthError(
      'invalid_email',
      `${JSON.stringify(email.trim())} is not an email address (at most ${MAX_EMAIL_LENGTH} characters)`,
    );
  }
  return normalized;
}
