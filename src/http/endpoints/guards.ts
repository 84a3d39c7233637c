/**
 * The guards endpoints declare, as values: each mounts its middleware and tells the document what
 * it may refuse and which credentials it takes, so that no endpoint lists its guards' refusals.
 */
import type { AuthConfig } from '../../config/config.js';
import type { ErrorCode } from '../../errors.js';
import type { CheckedEndpoint } from '../actions/checks.js';
import { assertEveryScope } from '../actions/tokens.js';
import type { Security } from '../openapi/operations.js';
import type { Guard } from './endpoint.js';

/** A session cookie or a bearer token. */
export const SESSION_OR_TOKEN: Security = [{ session: [] }, { bearer: [] }];
/** A session cookie only. */
export const SESSION: Security = [{ session: [] }];

/** `rate_limited`, when limits are on at all (SERVICE_AUTH_RATE_LIMIT_ENABLED). */
export function whenLimited(config: AuthConfig): ErrorCode[] {
  return config.rateLimit.enabled ? ['rate_limited'] : [];
}

/** Failed bearer tokens count per client on every endpoint that reads one. */
export function tokenFailuresNote(config: AuthConfig): string {
  if (!config.rateLimit.enabled) return '';
  const rate = config.rateLimit.tokenFailures.text;
  return (
    ` Failed bearer-token attempts: ${rate} per client address (SERVICE_AUTH_RATE_LIMIT_TOKEN_FAILURES),` +
    ' then 429 `rate_limited`.'
  );
}

/**
 * The refusals of `loginRequired` (a session cookie or a bearer token): none, a bad token, too
 * many bad tokens; with a session, an unsafe method must come from our own site.
 */
export function loginRefusals(config: AuthConfig, unsafe: boolean): ErrorCode[] {
  const csrf: ErrorCode[] = unsafe ? ['csrf_rejected'] : [];
  return ['unauthenticated', 'invalid_token', ...whenLimited(config), ...csrf];
}

/** `loginRequired`: a session or a bearer token. */
export const LOGIN: Guard = {
  use: ({ guards }) => [guards.loginRequired],
  refusals: loginRefusals,
  security: SESSION_OR_TOKEN,
};

/** `abilityReady`: `loginRequired`, with the user's attributes loaded for `req.ability`. */
export const ABILITY: Guard = {
  use: ({ guards }) => [guards.abilityReady],
  refusals: (config, unsafe) => [...loginRefusals(config, unsafe), 'attributes_unavailable'],
  security: SESSION_OR_TOKEN,
};

/** After the login: a bearer token needs every scope (a session passes). */
export const EVERY_SCOPE: Guard = {
  use: () => [
    (req, _res, next) => {
      assertEveryScope(req, 'Organizations need a token made without scopes (one that carries every scope)');
      next();
    },
  ],
  refusals: () => ['insufficient_scope'],
};

/** `orgRequired(param)`: a member of the organization in the path (a non-member's 404), `req.ability` there. */
export function orgRequired(param = 'org'): Guard {
  return {
    use: ({ guards }) => [guards.orgRequired(param)],
    refusals: () => ['forbidden', 'not_found', 'attributes_unavailable'],
  };
}

/** An endpoint's own checks (actions/checks.ts): its rate limit, and the same-site check of the public forms. */
export function checked(endpoint: CheckedEndpoint, refusals: (config: AuthConfig) => ErrorCode[] = whenLimited): Guard {
  return { use: ({ checks }) => checks[endpoint], refusals: (config) => refusals(config) };
}

/** The checks of a public form's endpoint: its rate limit, and that it comes from this site. */
export function checkedSameSite(endpoint: CheckedEndpoint): Guard {
  return checked(endpoint, (config) => [...whenLimited(config), 'csrf_rejected']);
}
