/**
 * What a user acting as another may not do in the other's name (docs/impersonation.md), decided in
 * this one place for every route of the package, pages and JSON API alike: change the account's
 * password, address or second factor (TOTP, recovery codes, passkeys), end its sessions, create or
 * revoke its tokens, unlink its sign-in providers, delete it, or start another impersonation
 * (linking a provider, which starts with a GET, included). These are what would let the
 * impersonator keep the account, or lock its owner out, after the impersonation ends.
 *
 * Any unsafe request under those paths is refused with 403 `impersonation_forbidden` before a route
 * runs, so a route added under them later is covered without anyone remembering a check; the
 * OpenAPI document lists the refusal by the same rule. Reading (the lists, the pages with the
 * forms) stays allowed: support often needs to see what the user sees.
 *
 * The same middleware notes, for the pages, who is acting as whom: the layout's banner.
 */
import type { Request, RequestHandler } from 'express';
import type { Credentials, MaybeCredentials } from '../../authentication/credentials.js';
import { AuthError } from '../../errors.js';
import type { AuthUser } from '../../users/auth-user.js';
import { isUnsafeMethod } from '../../sessions/csrf.js';
import { wantsPage } from './negotiation.js';

/** The account's own things, under the pages' paths and the JSON API's (`/api/…`). */
const ACCOUNT_PATHS =
  /^\/(?:api\/)?(?:password|email|me|delete-account|mfa|passkeys|sessions|tokens|identities)(?:\/|$)/;
const START_PATH = '/api/impersonation';

/** Linking a provider to the account starts with a GET at the provider's route: `/sso/<provider>?link=1`. */
const LINK_START = /^\/sso\/[^/]+$/;

/** Whether a request (method, path under the prefix, query) is refused while impersonating. */
export function refusedWhileImpersonating(method: string, path: string, query: Record<string, unknown> = {}): boolean {
  // Routing ignores case and a trailing slash: so does this.
  const normal = path.toLowerCase().replace(/\/+$/, '');
  const verb = method.toUpperCase();
  if (verb === 'GET') return query['link'] === '1' && LINK_START.test(normal);
  if (!isUnsafeMethod(verb)) return false;
  return ACCOUNT_PATHS.test(normal) || (verb === 'POST' && normal === START_PATH);
}

/** Who a page's request acts as, and who really acts, with where the banner's stop form posts. */
export interface ActingAs {
  user: AuthUser;
  impersonator: AuthUser;
  stopAction: string;
}

const acting = new WeakMap<Request, ActingAs>();

/** The impersonation a page is shown in, if any (for the layout's banner). */
export function actingAsOf(req: Request): ActingAs | undefined {
  return acting.get(req);
}

/**
 * Mounted on the package's router before its routes. Only requests that matter look up their
 * credentials here (what a guard would do anyway, once per request): a page, or an unsafe request
 * under the account's paths. The decision is on the credentials the resolver found, never on the
 * headers: a request whose `Authorization` header is not a bearer token is its session cookie's,
 * and an impersonated session is refused whatever else the request carries. A lookup that fails
 * (a bad token) is left for the route's guard, which gets the same failure.
 */
export function impersonationLimits(credentials: { lookup(req: Request): MaybeCredentials }): RequestHandler {
  return (req, _res, next) => {
    const refuse = refusedWhileImpersonating(req.method, req.path, req.query);
    if (!refuse && !wantsPage(req)) return next();
    const decide = (found: Credentials | null): void => {
      if (!found?.impersonator) return next();
      acting.set(req, {
        user: found.user,
        impersonator: found.impersonator,
        stopAction: `${req.baseUrl}/impersonation/stop`,
      });
      next(
        refuse
          ? new AuthError(
              'impersonation_forbidden',
              'Not while acting as another user: this is for the account’s owner to do',
            )
          : undefined,
      );
    };
    const found = credentials.lookup(req);
    if (found instanceof Promise) found.then(decide, () => next());
    else decide(found);
  };
}
