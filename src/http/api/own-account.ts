/**
 * What the endpoints of the logged-in user's own account share (profile.ts, sessions.ts, mfa.ts,
 * passkeys.ts and their pages): a session, not a token, and never while acting as the user.
 */
import type { AuthConfig } from '../../config/config.js';
import type { ErrorCode } from '../../errors.js';
import { endpoint, type Endpoint, type EndpointSpec } from '../endpoints/endpoint.js';
import { LOGIN, SESSION } from '../endpoints/guards.js';

/**
 * A session's, not a token's (the actions assert it); a change to the account itself is refused
 * while acting as its user (requests/impersonation-limits.ts).
 */
export const OWN: readonly ErrorCode[] = ['session_required', 'impersonation_forbidden'];

/** A browser's form gets pages. */
export const FORM = 'A browser’s form (urlencoded, preferring HTML) is answered with pages: ';

/** An endpoint of the account itself, with a session. */
export function accountEndpoint(spec: Omit<EndpointSpec, 'tags' | 'guards' | 'security'>): Endpoint {
  return endpoint({ ...spec, tags: ['account'], guards: [LOGIN], security: SESSION });
}

/** What a wrong password costs. */
export function wrongPassword(config: AuthConfig): string {
  const rates = config.rateLimit;
  const limit = rates.enabled
    ? ` (${rates.loginFailures.text} per account and client address, SERVICE_AUTH_RATE_LIMIT_LOGIN_FAILURES)`
    : '';
  return `A wrong password is 401 \`invalid_credentials\` and counts as a failed login${limit}.`;
}
