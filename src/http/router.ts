/**
 * The router mounted at SERVICE_AUTH_URL_PREFIX: the pages' routers first (they take only what a
 * browser sends them), then the JSON API's, and its OpenAPI description (openapi.ts). ServiceAuth
 * mounts `unknownPath` and the one error middleware right after it.
 */
import { Router, type Request, type RequestHandler } from 'express';
import type { AuditApi } from '../audit/audit-log.js';
import { withAuditContext } from '../audit/context.js';
import type { CredentialResolver } from '../authentication/credentials.js';
import type { SignIn } from '../authentication/sign-in.js';
import type { AbilityFactory, AppAbility } from '../authorization/abilities.js';
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
import { AccountActions } from './actions/account.js';
import { MfaActions } from './actions/mfa.js';
import { OrgActions } from './actions/orgs.js';
import type { OrgsForHttp } from './actions/org-service.js';
import { ProfileActions } from './actions/profile.js';
import { SessionActions } from './actions/sessions.js';
import { SsoActions } from './actions/sso.js';
import { accountApi } from './api/account.js';
import { profileApi } from './api/profile.js';
import { mfaApi } from './api/mfa.js';
import { passkeysApi } from './api/passkeys.js';
import { identitiesApi } from './api/identities.js';
import { securityLogApi } from './api/security-log.js';
import { sessionsApi } from './api/sessions.js';
import { abilitiesApi } from './api/abilities.js';
import { openApiApi } from './api/openapi.js';
import { orgsApi } from './api/orgs.js';
import { tokensApi } from './api/tokens.js';
import { impersonationApi } from './api/impersonation.js';
import { endpointChecks, type EndpointLimiters } from './actions/checks.js';
import { boundedBody } from './requests/body-limits.js';
import { impersonationLimits } from './requests/impersonation-limits.js';
import { BODY_LIMIT_BYTES, checkPath, readBody } from './requests/input.js';
import { accountPages } from './pages/account-routes.js';
import { adminPages, type AdminDeps, type Explainer } from './pages/admin/routes.js';
import { confirmPages } from './pages/confirm-routes.js';
import { profilePages } from './pages/profile-routes.js';
import { mfaPages } from './pages/mfa-routes.js';
import { orgPages } from './pages/org-routes.js';
import { impersonationPages } from './pages/impersonation-routes.js';
import { passkeyPages } from './pages/passkeys-routes.js';
import { securityLogPages } from './pages/security-log-routes.js';
import { sessionPages } from './pages/session-routes.js';
import { ssoPages } from './pages/sso-routes.js';
import type { PageTexts } from './pages/texts.js';
import type { DefinedScope } from './pages/tokens-page.js';
import { tokenPages } from './pages/token-routes.js';
import { accountSchemas } from './schemas/accounts.js';
import { tokenSchemas } from './schemas/tokens.js';

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
  guards: { readonly loginRequired: RequestHandler; readonly abilityReady: RequestHandler; orgRequired(param?: string): RequestHandler } & AdminDeps['guards'];
  /** Organizations, their members and invitations (the service makes no permission checks: actions/orgs.ts does). */
  orgs: OrgsForHttp & AdminDeps['orgs'];
  /** The global roles defined (the admin console gives them). */
  roleRules: { names(): string[] };
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
  const { config, pluggable, tokens } = deps;
  const { loginRequired, abilityReady } = deps.guards;
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

  const checks = endpointChecks(deps.limiters, new URL(config.publicUrl).origin);
  const schemas = accountSchemas(config.passwords);
  const actions = new AccountActions({ ...deps, schemas });
  const profile = new ProfileActions({ ...deps, schemas });
  const sessions = new SessionActions(deps.sessions, deps.credentials, deps.signIn);
  const mfa = new MfaActions({ schemas, signIn: deps.signIn, secondFactors: deps.secondFactors, passkeys: deps.passkeys });
  const newToken = tokenSchemas(config.tokens.maxExpiryDays);
  const providers = deps.sso.providers;
  const sso = new SsoActions({ config, flow: deps.sso.flow, identities: deps.sso.identities, signIn: deps.signIn, credentials: deps.credentials, events: deps.events });
  router.use(accountPages({ config, actions, checks, resets: deps.resets, pluggable, providers }));
  router.use(ssoPages({ config, sso, providers, loginRequired, pluggable }));
  const orgs = new OrgActions({ config, orgs: deps.orgs, orgRoles: deps.orgRoles, abilityIn: (userId, orgId) => deps.abilityIn(userId, orgId) });
  router.use(tokenPages({ config, tokens, orgs, tokenForm: newToken.form, loginRequired, limit: checks.createToken, pluggable, scopes: deps.scopes }));
  router.use(profilePages({ config, profile, checks, loginRequired, pluggable }));
  router.use(sessionPages({ config, sessions, loginRequired, pluggable }));
  router.use(securityLogPages({ config, audit: deps.audit, loginRequired, pluggable }));
  router.use(mfaPages({ config, mfa, account: actions, checks, loginRequired, pluggable }));
  router.use(passkeyPages({ config, mfa, loginRequired, pluggable }));
  router.use(impersonationPages(deps.impersonation, loginRequired));
  const orgRequired = deps.guards.orgRequired('org');
  const orgLimits = { inviteLimit: checks.invite, acceptLimit: checks.acceptInvitation };
  // Credentials a guard would refuse count as nobody on the invitation link's page; storage out of reach does not.
  const currentUser = async (req: Request) =>
    (await deps.credentials.acceptable(req).catch((error: unknown) => {
      if (error instanceof AuthError && error.code !== 'unavailable') return null;
      throw error;
    }))?.user ?? null;
  router.use(orgPages({ config, orgs, loginRequired, abilityReady, orgRequired, currentUser, ...orgLimits, pluggable }));
  router.use(adminPages({ ...deps, explain: facade.explain }));
  router.use(confirmPages({ config, account: actions, profile, checks, registrations: deps.registrations, emailChanges: deps.emailChanges, pluggable }));
  router.use(accountApi({ actions, checks, credentials: deps.credentials, passkeys: deps.passkeys }));
  router.use(profileApi({ actions: profile, checks, loginRequired }));
  router.use('/api/sessions', sessionsApi(sessions, loginRequired));
  router.use('/api/security-log', securityLogApi(deps.audit, loginRequired));
  router.use('/api/mfa', mfaApi(mfa, loginRequired));
  router.use('/api/passkeys', passkeysApi(mfa, loginRequired));
  router.use('/api/identities', identitiesApi(sso, loginRequired));
  router.use('/api/tokens', tokensApi({ tokens, loginRequired, limit: checks.createToken, newToken: newToken.json }));
  router.use('/api/abilities', abilitiesApi({ abilityReady, abilities: deps.abilities, orgs: deps.orgAccess }));
  router.use('/api/impersonation', impersonationApi(deps.impersonation, loginRequired));
  router.use('/api', orgsApi({ orgs, loginRequired, abilityReady, orgRequired, ...orgLimits }));
  // Its modules (the paths, the response schemas and their JSON Schema conversion) load with the
  // first request for it, not with the package.
  router.use(openApiApi(async () => (await import('./openapi.js')).openApiDocument(config, deps.scopes.list())));
  return router;
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
export const unknownPath: RequestHandler = (_req, _res, next) => next(new AuthError('not_found', 'There is nothing at this path'));

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
const noOptions: RequestHandler = (req, _res, next) => next(req.method === 'OPTIONS' ? new AuthError('not_found', 'There is nothing at this path') : undefined);
