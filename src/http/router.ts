/**
 * The router mounted at SERVICE_AUTH_URL_PREFIX: what every request there goes through (headers,
 * storage ready, a request context, body limits), then the routes (routes.ts), loaded with the
 * first request that reaches them. ServiceAuth mounts `unknownPath` and the one error middleware
 * right after it.
 */
import { Router, type RequestHandler } from 'express';
import type { AuditApi } from '../audit/audit-log.js';
import { once } from '../once.js';
import { withAuditContext } from '../audit/context.js';
import type { CredentialResolver } from '../authentication/credentials.js';
import type { SignIn } from '../authentication/sign-in.js';
import type { AbilityFactory } from '../authorization/abilities.js';
import type { AppAbility } from '../authorization/ability-types.js';
import type { OrgAccess } from '../authorization/org-access.js';
import type { AuthConfig } from '../config/config.js';
import { AuthError } from '../errors.js';
import { clientKey } from '../rate-limit/client-key.js';
import type { EventBus } from '../events.js';
import type { Impersonation } from '../impersonation/impersonation.js';
import type { Passkeys } from '../mfa/passkeys.js';
import type { SecondFactors } from '../mfa/second-factor.js';
import type { TokenService } from '../tokens/service.js';
import type { SessionStore } from '../sessions/store.js';
import type { SsoParts } from '../sso/parts.js';
import type { EmailChanges } from '../users/email-changes.js';
import type { PasswordResets } from '../users/password-resets.js';
import type { Registrations } from '../users/registrations.js';
import type { UserService } from '../users/service.js';
import type { OrgsForHttp } from './actions/org-service.js';
import type { EndpointLimiters } from './actions/checks.js';
import { boundedBody } from './requests/body-limits.js';
import { impersonationLimits } from './requests/impersonation-limits.js';
import { BODY_LIMIT_BYTES, checkPath, readBody } from './requests/input.js';
import type { AdminDeps, Explainer } from './pages/admin/routes.js';
import type { PageTexts } from './pages/texts.js';
import type { DefinedScope } from './pages/tokens-page.js';

export interface AuthRouterDeps {
  config: AuthConfig;
  pluggable: { readonly texts: PageTexts };
  users: UserService;
  signIn: SignIn;
  credentials: CredentialResolver;
  resets: PasswordResets;
  registrations: Registrations;
  emailChanges: EmailChanges;
  sessions: SessionStore;
  passwords: { assertRules(password: string): void };
  events: EventBus;
  tokens: TokenService;
  secondFactors: SecondFactors;
  passkeys: Passkeys;
  /** Acting as another user (docs/impersonation.md). */
  impersonation: Pick<Impersonation, 'start' | 'stop'>;
  /** Identity providers, linked identities and the sign-in through them (src/sso/). */
  sso: SsoParts;
  /** The caller's own records, for the security log; the whole log, for the admin console. */
  audit: Pick<AuditApi, 'query' | 'verify'>;
  abilities: AbilityFactory;
  /** Organizations as the guards find them (`GET /api/abilities?org=`). */
  orgAccess: Pick<OrgAccess, 'placeOf' | 'attributedIn'>;
  guards: {
    readonly loginRequired: RequestHandler;
    readonly abilityReady: RequestHandler;
    orgRequired(param?: string): RequestHandler;
  } & AdminDeps['guards'];
  /** Organizations, their members and invitations (the service makes no permission checks: actions/orgs.ts does). */
  orgs: OrgsForHttp & AdminDeps['orgs'];
  /** The global roles defined (the admin console gives them). */
  roleRules: { names(): string[] };
  /** The roles stored, and whether a role exists (the admin console gives those too). */
  roles: AdminDeps['roles'];
  /** The organization roles the application defines. */
  orgRoles: { names(): string[] };
  /** A user's ability in an organization now, or null for a user who is no more (an invitation's inviter). */
  abilityIn(userId: number, orgId: number): Promise<AppAbility | null>;
  /** The scopes the application defines (`auth.defineScope`): the tokens page and the OpenAPI document list them. */
  scopes: { list(): DefinedScope[] };
  /** Absent when SERVICE_AUTH_RATE_LIMIT_ENABLED is false. */
  limiters: EndpointLimiters | undefined;
  /** Waits for storage on behalf of a request (a failed start is a 503). */
  whenReady(): Promise<void>;
  /** One entity manager per request. */
  storage: { readonly requestContext: RequestHandler };
}

/** What the router needs of the facade itself: `auth.explain`, for the admin console's "why". */
export interface AuthFacade {
  explain: Explainer;
}

export function createAuthRouter(deps: AuthRouterDeps, facade: AuthFacade): Router {
  const { config } = deps;
  const router = Router();
  router.use(securityHeaders, noOptions, checkPath);
  router.use(async (_req, _res, next) => {
    await deps.whenReady();
    next();
  });
  router.use(deps.storage.requestContext);
  router.use(auditContext);
  router.use(boundedBody(readBody, { bytes: BODY_LIMIT_BYTES, timeoutMs: config.bodyTimeoutMs }));
  router.use(impersonationLimits(deps.credentials));

  // The routes (the pages, the JSON API, their declarations, schemas and actions) load with
  // the first request that reaches them, not with the package: a server whose first requests are
  // to its own routes behind the guards does not need them to answer. They go into `routes`, a
  // router of their own, so that the router's stack shows them once loaded.
  const routes = Router();
  router.use(
    loadOnce(async () => {
      routes.use((await import('./routes.js')).authRoutes(deps, facade));
    }),
    routes,
  );
  return router;
}

/**
 * `load`, with the first request, which waits for it (once: src/once.ts); a load that fails (a
 * module missing) fails that request as an unexpected error, and the next request tries again.
 */
function loadOnce(load: () => Promise<void>): RequestHandler {
  const loaded = once(load);
  return async (_req, _res, next) => {
    await loaded();
    next();
  };
}

/** Who acts in what the request records, and from where (src/audit/context.ts). */
const auditContext: RequestHandler = (req, _res, next) => {
  withAuditContext({ actor: 'http', ip: clientKey(req), userAgent: req.get('user-agent') }, next);
};

/**
 * Mounted after the router at the prefix: any path under it that no route took, including one
 * the router could not read as a path at all (`//host@x`, which reads as an authority), is a 404.
 * The application mounts the same after its own routes (`auth.notFound`).
 */
export const unknownPath: RequestHandler = (_req, _res, next) =>
  next(new AuthError('not_found', 'There is nothing at this path'));

/**
 * No response of ours is to be sniffed into another type; none carrying account data (`/me`, the
 * API) is to be kept by a cache. The pages set their own (render.ts).
 */
const securityHeaders: RequestHandler = (req, res, next) => {
  res.setHeader('X-Content-Type-Options', 'nosniff');
  // Routing ignores case and a trailing slash: so does this (/ME/ is /me).
  const path = req.path.toLowerCase().replace(/\/+$/, '');
  if (path === '/me' || path.startsWith('/api/')) res.setHeader('Cache-Control', 'no-store');
  next();
};

/**
 * No route here answers OPTIONS: rather than Express's automatic 200 listing the methods, the
 * 404 every other unserved method gets (an application that serves CORS answers preflights itself).
 */
const noOptions: RequestHandler = (req, _res, next) =>
  next(req.method === 'OPTIONS' ? new AuthError('not_found', 'There is nothing at this path') : undefined);
