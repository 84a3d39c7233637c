/**
 * Route guards: Express middleware that resolve the request's credentials (session cookie or
 * bearer token), attach `req.user`, `req.ability`, `req.authMethod` (and `req.token`), and let the
 * request through only if the check passes. They decide; they never answer. A refusal is handed
 * to `next(err)`, for the one error middleware (`auth.errorHandler`) to answer as problem details
 * or as a page:
 *
 * - no credentials: 401 `unauthenticated` (`LoginRequired`: a browser navigation goes to the
 *   login page instead);
 * - credentials without the right: 403 `forbidden`;
 * - the database unreachable while looking the credentials up: its error, which the error
 *   middleware answers 503 `unavailable`;
 * - the application's user attributes needed and not to be had (user-attributes.ts): 503
 *   `attributes_unavailable`.
 *
 * Every guard loads the user's attributes when a role in play (the user's, the membership's, a
 * token's scopes) names one and they are not loaded yet, so that `req.ability` is usable after any
 * guard. The guards that decide with the ability (`require`, `orgRequired`) refuse with 503 when
 * the application's resolver fails; the others (`loginRequired`, `rolesRequired`, the scope checks)
 * decide nothing with it and pass, their `req.ability` then built with no attribute values, which
 * denies what a rule names them for (fail closed, never a 500).
 */
import type { NextFunction, Request, RequestHandler } from 'express';
import type { CredentialResolver, Credentials } from '../authentication/credentials.js';
import { AuthError, BEARER_CHALLENGE, LoginRequired } from '../errors.js';
import { assertSameSite, isUnsafeMethod } from '../sessions/csrf.js';
import type { AbilityFactory } from './abilities.js';
import { POLICY_ACTION } from './policy-rules.js';
import { routeContext } from './context.js';
import type { OrgAccess } from './org-access.js';
import type { PolicyRegistry } from './policies.js';
import type { Tenant } from './tenant.js';
import { attachCredentials, credentialsOf, orgOfRequest, setAttributedUser, userOfRequest } from './request-state.js';
import type { UserAttributes } from './user-attributes.js';
import { withAttributes } from './principal.js';
import { resourceCheck, type ResourceOptions } from './resource-checks.js';
import { SCOPE_REFUSAL, ScopedAbility } from './scoped-ability.js';

export interface GuardDeps {
  credentials: CredentialResolver;
  abilities: AbilityFactory;
  policies: PolicyRegistry;
  orgs: OrgAccess;
  tenant: Tenant;
  attributes: UserAttributes;
  /** The origin of SERVICE_AUTH_PUBLIC_URL, for the same-site check. */
  publicOrigin: string;
}

/** Decides whether authenticated credentials may pass; returns the refusal, or nothing (perhaps later). */
type Check = (req: Request, credentials: Credentials) => AuthError | undefined | Promise<AuthError | undefined>;

/** `T`: what `load` finds (inferred from it, or named: `require<Note>({ …, load })`). */
export type RequireOptions<T = unknown> = { policy: string } | ResourceOptions<T>;

export class Guards {
  /** A session or a token. */
  readonly loginRequired: RequestHandler;
  /** A valid API token (`Authorization: Bearer`); a session cookie alone does not pass. */
  readonly tokenRequired: RequestHandler;
  /**
   * A session or a token, and `req.ability` ready: the user's attributes loaded if their roles name
   * any (the package's own routes that ask it).
   */
  readonly abilityReady: RequestHandler;

  constructor(private readonly deps: GuardDeps) {
    this.loginRequired = this.guard(() => undefined);
    this.tokenRequired = this.guard(() => undefined, { tokenOnly: true });
    this.abilityReady = this.guard(() => undefined, { ability: true });
  }

  /**
   * The token carries every scope (a token made without scopes carries all). A session is not
   * limited by scopes; put `tokenRequired` first where only tokens may pass.
   */
  requireScopes(...scopes: string[]): RequestHandler {
    if (scopes.length === 0 || !scopes.every((scope) => typeof scope === 'string' && scope !== '')) {
      throw new TypeError('requireScopes(...scopes): name at least one scope');
    }
    return this.guard((_req, { method, token }) => {
      const granted = token?.scopes;
      if (method !== 'token' || !granted || granted.length === 0) return undefined;
      const missing = scopes.filter((scope) => !granted.includes(scope));
      if (missing.length === 0) return undefined;
      return new AuthError(
        'insufficient_scope',
        `This token lacks the scope${missing.length > 1 ? 's' : ''} ${missing.join(', ')}`,
        undefined,
        {
          'WWW-Authenticate': `${BEARER_CHALLENGE}, error="insufficient_scope", scope="${scopes.join(' ')}"`,
        },
      );
    });
  }

  /**
   * The organization named by the URL parameter `param` (its id or slug), of which the user is a
   * member (or may `read` it by a global rule): sets `req.org`, `req.membership`, and `req.ability`
   * to the ability in it for every later guard. Anyone else: 404 `not_found`.
   */
  orgRequired(param = 'org'): RequestHandler {
    if (typeof param !== 'string' || param === '')
      throw new TypeError("orgRequired(param): name the URL parameter, e.g. orgRequired('org')");
    return this.guard((req, credentials) => this.deps.orgs.enter(req, credentials, param), { ability: true });
  }

  /** The user holds every one of the roles. */
  rolesRequired(...roles: string[]): RequestHandler {
    requireRoleNames('rolesRequired', roles);
    // The refusal names no role: which roles guard what is the application's business.
    return this.guard((_req, { user }) =>
      roles.every((role) => user.roles.has(role)) ? undefined : forbidden('Your roles do not allow this'),
    );
  }

  /** The user holds at least one of the roles. */
  rolesAccepted(...roles: string[]): RequestHandler {
    requireRoleNames('rolesAccepted', roles);
    return this.guard((_req, { user }) =>
      roles.some((role) => user.roles.has(role)) ? undefined : forbidden('Your roles do not allow this'),
    );
  }

  /**
   * `{ policy }`: the named policy returns true for the user and the URL context.
   * `{ action, subject }`: the user's ability allows `action` on a `subject` whose fields are the
   * URL context; with `load`, on the resource it loads (then on `req.resource`), which `conceal`
   * answers as missing when refused; with `fields: 'body'`, also on every field the body sets.
   */
  require<T = unknown>(options: RequireOptions<T>): RequestHandler {
    if (options && 'policy' in options && typeof options.policy === 'string' && options.policy) {
      const { policy } = options;
      // The same answer as `req.ability.can('satisfy', subject(policy, context))` (only the function
      // decides a policy subject), without building a CASL subject on every request. Fails closed,
      // and PolicyRegistry logs why. A scoped token also needs a scope granting `satisfy` on it.
      return this.guard(
        (req, { user, token }) => {
          if (!this.deps.policies.check(policy, user, routeContext(req.params)))
            return forbidden('You may not do this');
          const ability = token && token.scopes.length > 0 ? req.ability : undefined;
          return ability instanceof ScopedAbility && !ability.scopes.can(POLICY_ACTION, policy)
            ? forbidden(SCOPE_REFUSAL)
            : undefined;
        },
        { ability: true },
      );
    }
    if (options && 'action' in options && typeof options.action === 'string' && typeof options.subject === 'string') {
      if (options.load !== undefined && typeof options.load !== 'function')
        throw new TypeError('require({ load }): load must be a function of the request');
      if (options.fields !== undefined && options.fields !== 'body')
        throw new TypeError("require({ fields }): the only fields to check are 'body'");
      if (
        options.conceal !== undefined &&
        typeof options.conceal !== 'boolean' &&
        (typeof options.conceal !== 'string' || options.conceal === '')
      )
        throw new TypeError('require({ conceal }): conceal is true, false or an action');
      if (options.conceal && !options.load)
        throw new TypeError('require({ conceal }): conceal needs load: without a resource there is nothing to hide');
      const check = resourceCheck(options, this.deps.tenant);
      return this.guard((req) => check(req), { ability: true });
    }
    throw new TypeError('require(options): pass { policy: name } or { action, subject, load?, fields?, conceal? }');
  }

  /**
   * Builds a guard around a check; `tokenOnly` refuses credentials other than a bearer token.
   * The user's attributes are loaded when their roles name any: before the check (and again after
   * it, for the roles it put in play: `orgRequired`). `ability`: the check decides with
   * `req.ability`, so a resolver that fails refuses (503); without it, the guard passes with no
   * attribute values. When the credentials are in memory and no attributes need reading, the
   * guard decides synchronously, without a promise.
   */
  guard(check: Check, options: { tokenOnly?: boolean; ability?: boolean } = {}): RequestHandler {
    const { deps } = this;
    const tokenOnly = options.tokenOnly === true;
    const withAbility = options.ability === true;
    const load = (req: Request, credentials: Credentials): Promise<void> | undefined =>
      this.loadAttributes(req, credentials, withAbility);
    const pass = (req: Request, next: NextFunction, credentials: Credentials, refusal: AuthError | undefined): void => {
      if (refusal) return next(refusal);
      const loading = load(req, credentials);
      if (loading) loading.then(() => next(), next);
      else next();
    };
    const decide = (req: Request, next: NextFunction, credentials: Credentials | null): void => {
      if (!credentials || (tokenOnly && credentials.method !== 'token')) throw unauthenticated(tokenOnly);
      // A cookie is sent by the browser on its own: a state change must come from our own site.
      if (credentials.method === 'session' && isUnsafeMethod(req.method)) assertSameSite(req, deps.publicOrigin);
      attachCredentials(req, credentials, deps.abilities);
      const settle = (): void => {
        const refusal = check(req, credentials);
        if (refusal instanceof Promise) refusal.then((found) => pass(req, next, credentials, found), next);
        else if (refusal) throw refusal;
        else pass(req, next, credentials, undefined);
      };
      const loading = load(req, credentials);
      if (loading) loading.then(settle).catch(next);
      else settle();
    };
    return (req, _res, next) => {
      try {
        const credentials = credentialsOf(req, deps.abilities) ?? deps.credentials.lookup(req);
        if (credentials instanceof Promise) credentials.then((found) => decide(req, next, found)).catch(next);
        else decide(req, next, credentials);
      } catch (error) {
        next(error);
      }
    };
  }

  /**
   * Loads the user's attributes onto the request when a role in play (global roles, the
   * organization's if the request is in one, the token's scopes) names one and they are not
   * loaded yet; nothing (no promise) otherwise. `required: false`: a resolver that fails (logged by
   * user-attributes.ts) leaves the user with no values, which deny, rather than refusing.
   */
  private loadAttributes(req: Request, { token }: Credentials, required: boolean): Promise<void> | undefined {
    const user = userOfRequest(req)!;
    if (user.attributes) return undefined;
    const place = orgOfRequest(req);
    const inOrg = place && { org: place.org, roles: place.membership?.roles ?? [] };
    if (!this.deps.abilities.needsAttributes(user, inOrg, token?.scopes)) return undefined;
    const loading = this.deps.attributes.load(user);
    const attributed = required ? loading : loading.catch(() => withAttributes(user, NO_VALUES));
    return attributed.then((found) => setAttributedUser(req, found));
  }
}

const NO_VALUES = Object.freeze({});

function unauthenticated(tokenOnly: boolean): AuthError {
  return tokenOnly
    ? new AuthError('unauthenticated', 'This needs an API token: Authorization: Bearer <token>')
    : new LoginRequired();
}

function forbidden(detail: string): AuthError {
  return new AuthError('forbidden', detail);
}

function requireRoleNames(guard: string, roles: string[]): void {
  if (roles.length === 0 || !roles.every((role) => typeof role === 'string' && role !== '')) {
    throw new TypeError(`${guard}(...roles): name at least one role`);
  }
}
