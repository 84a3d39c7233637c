/**
 * Route guards: Express middleware that resolve the request's credentials (session cookie or
 * bearer token), attach `req.user`, `req.ability`, `req.authMethod` (and `req.token`), and let the
 * request through only if the check passes. They answer refusals themselves, as problem details,
 * so an application's own error handler never has to know about them:
 *
 * - no credentials: 401 `unauthenticated` (a browser navigation is redirected to the login page
 *   with a same-site `next` instead);
 * - credentials without the right: 403 `forbidden`;
 * - the database unreachable while looking the credentials up: 503 `unavailable`, logged.
 */
import { subject as asSubject } from '@casl/ability';
import type { NextFunction, Request, RequestHandler, Response } from 'express';
import { AuthError, databaseUnavailable, sendProblem } from '../errors.js';
import { prefersHtml, safeNext } from '../http/browser.js';
import type { Logger } from '../logger.js';
import { assertSameSite, isUnsafeMethod } from '../sessions/csrf.js';
import type { AbilityFactory } from './abilities.js';
import { routeContext } from './context.js';
import type { CredentialResolver, Credentials } from './credentials.js';
import type { PolicyRegistry } from './policies.js';
import { attachCredentials } from './request-state.js';

export interface GuardDeps {
  credentials: CredentialResolver;
  abilities: AbilityFactory;
  policies: PolicyRegistry;
  /** The origin of SERVICE_AUTH_PUBLIC_URL, for the same-site check. */
  publicOrigin: string;
  /** Where browsers without a session are sent: the login page under the prefix. */
  loginPath: string;
  logger: Logger;
}

/** Decides whether authenticated credentials may pass; returns the refusal, or nothing. */
type Check = (req: Request, credentials: Credentials) => AuthError | undefined;

export type RequireOptions = { policy: string } | { action: string; subject: string };

export class Guards {
  /** A session or a token. */
  readonly loginRequired: RequestHandler;
  /** A valid API token (`Authorization: Bearer`); a session cookie alone does not pass. */
  readonly tokenRequired: RequestHandler;

  constructor(private readonly deps: GuardDeps) {
    this.loginRequired = this.guard(() => undefined);
    this.tokenRequired = this.guard(() => undefined, { tokenOnly: true });
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
      return new AuthError('insufficient_scope', `This token lacks the scope${missing.length > 1 ? 's' : ''} ${missing.join(', ')}`, undefined, {
        'WWW-Authenticate': `Bearer error="insufficient_scope", scope="${scopes.join(' ')}"`,
      });
    });
  }

  /** The user holds every one of the roles. */
  rolesRequired(...roles: string[]): RequestHandler {
    requireRoleNames('rolesRequired', roles);
    return this.guard((_req, { user }) => {
      const missing = roles.filter((role) => !user.roles.has(role));
      return missing.length ? forbidden(`This needs the role${missing.length > 1 ? 's' : ''} ${missing.join(', ')}`) : undefined;
    });
  }

  /** The user holds at least one of the roles. */
  rolesAccepted(...roles: string[]): RequestHandler {
    requireRoleNames('rolesAccepted', roles);
    return this.guard((_req, { user }) => (roles.some((role) => user.roles.has(role)) ? undefined : forbidden(`This needs one of the roles ${roles.join(', ')}`)));
  }

  /**
   * `{ policy }`: the named policy returns true for the user and the URL context.
   * `{ action, subject }`: the user's ability allows `action` on a `subject` whose fields are the
   * URL context.
   */
  require(options: RequireOptions): RequestHandler {
    if (options && 'policy' in options && typeof options.policy === 'string' && options.policy) {
      const { policy } = options;
      // The same answer as `req.ability.can('satisfy', subject(policy, context))` (only the function
      // decides a policy subject), without building a CASL subject on every request. Fails closed,
      // and PolicyRegistry logs why.
      return this.guard((req, { user }) => (this.deps.policies.check(policy, user, routeContext(req.params)) ? undefined : forbidden('You may not do this')));
    }
    if (options && 'action' in options && typeof options.action === 'string' && typeof options.subject === 'string') {
      const { action, subject } = options;
      return this.guard((req, { user }) =>
        this.deps.abilities.abilityFor(user).can(action, asSubject(subject, routeContext(req.params))) ? undefined : forbidden(`You may not ${action} this ${subject}`),
      );
    }
    throw new TypeError('require(options): pass { policy: name } or { action, subject }');
  }

  /**
   * Builds a guard around a check; `tokenOnly` refuses credentials other than a bearer token.
   * When the credentials are in memory the guard decides synchronously, without a promise.
   */
  guard(check: Check, options: { tokenOnly?: boolean } = {}): RequestHandler {
    const { deps } = this;
    const tokenOnly = options.tokenOnly === true;
    const decide = (req: Request, res: Response, next: NextFunction, credentials: Credentials | null): void => {
      if (!credentials || (tokenOnly && credentials.method !== 'token')) {
        this.unauthenticated(req, res, tokenOnly);
        return;
      }
      // A cookie is sent by the browser on its own: a state change must come from our own site.
      if (credentials.method === 'session' && isUnsafeMethod(req.method)) assertSameSite(req, deps.publicOrigin);
      attachCredentials(req, credentials, deps.abilities);
      const refusal = check(req, credentials);
      if (refusal) throw refusal;
      next();
    };
    return (req, res, next) => {
      try {
        const credentials = deps.credentials.lookup(req);
        if (credentials instanceof Promise) {
          credentials.then((found) => decide(req, res, next, found)).catch((error: unknown) => this.refuse(error, req, res, next));
        } else {
          decide(req, res, next, credentials);
        }
      } catch (error) {
        this.refuse(error, req, res, next);
      }
    };
  }

  /**
   * A refusal is answered here, and so is our own database being out of reach; anything else is
   * the application's error.
   */
  private refuse(error: unknown, req: Request, res: Response, next: NextFunction): void {
    const refusal = error instanceof AuthError ? error : databaseUnavailable(error, this.deps.logger, req);
    if (refusal) sendProblem(res, refusal);
    else next(error);
  }

  private unauthenticated(req: Request, res: Response, tokenOnly: boolean): void {
    if (!tokenOnly && (req.method === 'GET' || req.method === 'HEAD') && prefersHtml(req)) {
      const next = safeNext(req.originalUrl, '');
      res.redirect(303, next ? `${this.deps.loginPath}?next=${encodeURIComponent(next)}` : this.deps.loginPath);
      return;
    }
    const detail = tokenOnly ? 'This needs an API token: Authorization: Bearer <token>' : 'Log in, or send an API token, to see this';
    sendProblem(res, new AuthError('unauthenticated', detail, undefined, tokenOnly ? { 'WWW-Authenticate': 'Bearer' } : {}));
  }
}

function forbidden(detail: string): AuthError {
  return new AuthError('forbidden', detail);
}

function requireRoleNames(guard: string, roles: string[]): void {
  if (roles.length === 0 || !roles.every((role) => typeof role === 'string' && role !== '')) {
    throw new TypeError(`${guard}(...roles): name at least one role`);
  }
}
