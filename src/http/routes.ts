/**
 * The routes under SERVICE_AUTH_URL_PREFIX: the pages' routers first (they take only what a browser
 * sends them), then the JSON API's, and its OpenAPI description (openapi.ts). Each router mounts
 * endpoints declared once (endpoints/endpoint.ts), which the description walks too
 * (endpoint-table.ts). router.ts builds them with the first request that reaches them, behind what
 * every request there goes through.
 */
import { Router, type Request } from 'express';
import { AuthError } from '../errors.js';
import { AccountActions } from './actions/account.js';
import { MfaActions } from './actions/mfa.js';
import { OrgActions } from './actions/orgs.js';
import { ProfileActions } from './actions/profile.js';
import { SessionActions } from './actions/sessions.js';
import { SsoActions } from './actions/sso.js';
import { accountApi } from './api/account.js';
import { linksApi } from './api/links.js';
import { loginStepsApi } from './api/login-steps.js';
import { profileApi } from './api/profile.js';
import { mfaApi } from './api/mfa.js';
import { passkeysApi } from './api/passkeys.js';
import { identitiesApi } from './api/identities.js';
import { securityLogApi } from './api/security-log.js';
import { sessionsApi } from './api/sessions.js';
import { abilitiesApi } from './api/abilities.js';
import { openApiApi } from './api/openapi.js';
import { orgsApi } from './api/orgs.js';
import { orgMembersApi } from './api/org-members.js';
import { invitationsApi } from './api/invitations.js';
import { tokensApi } from './api/tokens.js';
import { impersonationApi } from './api/impersonation.js';
import { endpointChecks } from './actions/checks.js';
import { accountPages } from './pages/account-routes.js';
import { adminPages } from './pages/admin/routes.js';
import { confirmPages } from './pages/confirm-routes.js';
import { profilePages } from './pages/profile-routes.js';
import { mfaPages } from './pages/mfa-routes.js';
import { orgPages } from './pages/org-routes.js';
import { invitationPages } from './pages/invitation-routes.js';
import { impersonationPages } from './pages/impersonation-routes.js';
import { passkeyPages } from './pages/passkeys-routes.js';
import { securityLogPages } from './pages/security-log-routes.js';
import { sessionPages } from './pages/session-routes.js';
import { ssoPages } from './pages/sso-routes.js';
import { tokenPages } from './pages/token-routes.js';
import { accountSchemas } from './schemas/accounts.js';
import { tokenSchemas } from './schemas/tokens.js';
import type { AuthFacade, AuthRouterDeps } from './router.js';
import { ENDPOINTS } from './endpoint-table.js';
import type { GuardKit } from './endpoints/guard-kit.js';
import { unmounted } from './endpoints/mount.js';

export function authRoutes(deps: AuthRouterDeps, facade: AuthFacade): Router {
  const { config, pluggable, tokens } = deps;
  const router = Router();
  const checks = endpointChecks(deps.limiters, new URL(config.publicUrl).origin);
  const kit: GuardKit = { guards: deps.guards, checks };
  const schemas = accountSchemas(config.passwords);
  const actions = new AccountActions({ ...deps, schemas });
  const profile = new ProfileActions({ ...deps, schemas });
  const sessions = new SessionActions(deps.sessions, deps.credentials, deps.signIn);
  const mfa = new MfaActions({
    schemas,
    signIn: deps.signIn,
    secondFactors: deps.secondFactors,
    passkeys: deps.passkeys,
  });
  const newToken = tokenSchemas(config.tokens.maxExpiryDays);
  const providers = deps.sso.providers;
  const sso = new SsoActions({
    config,
    flow: deps.sso.flow,
    identities: deps.sso.identities,
    signIn: deps.signIn,
    credentials: deps.credentials,
    events: deps.events,
  });
  router.use(accountPages({ config, actions, resets: deps.resets, pluggable, providers }, kit).router);
  router.use(ssoPages({ config, sso, providers, pluggable }, kit).router);
  const orgs = new OrgActions({
    config,
    orgs: deps.orgs,
    orgRoles: deps.orgRoles,
    abilityIn: (userId, orgId) => deps.abilityIn(userId, orgId),
  });
  const tokenForm = newToken.form;
  router.use(tokenPages({ config, tokens, orgs, tokenForm, pluggable, scopes: deps.scopes }, kit).router);
  router.use(profilePages({ config, profile, pluggable }, kit).router);
  router.use(sessionPages({ config, sessions, pluggable }, kit).router);
  router.use(securityLogPages({ config, audit: deps.audit, pluggable }, kit).router);
  router.use(mfaPages({ config, mfa, account: actions, pluggable }, kit).router);
  router.use(passkeyPages({ config, mfa, pluggable }, kit).router);
  router.use(impersonationPages(deps.impersonation, kit).router);
  // Credentials a guard would refuse count as nobody on the invitation link's page; storage out of reach does not.
  const currentUser = async (req: Request) =>
    (
      await deps.credentials.acceptable(req).catch((error: unknown) => {
        if (error instanceof AuthError && error.code !== 'unavailable') return null;
        throw error;
      })
    )?.user ?? null;
  router.use(orgPages({ config, orgs, pluggable }, kit).router);
  router.use(invitationPages({ config, orgs, currentUser, pluggable }, kit).router);
  router.use(adminPages({ ...deps, explain: facade.explain }, kit));
  const links = { registrations: deps.registrations, emailChanges: deps.emailChanges };
  router.use(confirmPages({ config, account: actions, profile, ...links, pluggable }, kit).router);
  router.use(accountApi({ actions, credentials: deps.credentials }, kit).router);
  router.use(loginStepsApi({ actions, passkeys: deps.passkeys }, kit).router);
  router.use(linksApi(actions, kit).router);
  router.use(profileApi(profile, kit).router);
  router.use(sessionsApi(sessions, kit).router);
  router.use(securityLogApi(deps.audit, kit).router);
  router.use(mfaApi(mfa, kit).router);
  router.use(passkeysApi(mfa, kit).router);
  router.use(identitiesApi(sso, kit).router);
  router.use(tokensApi({ tokens, newToken: newToken.json }, kit).router);
  router.use(abilitiesApi({ abilities: deps.abilities, orgs: deps.orgAccess }, kit).router);
  router.use(impersonationApi(deps.impersonation, kit).router);
  router.use(orgsApi(orgs, kit).router);
  router.use(orgMembersApi(orgs, kit).router);
  router.use(invitationsApi(orgs, kit).router);
  // Its builder (walking the declarations, converting the zod schemas to JSON Schema) loads with
  // the first request for it, not with the routes.
  const document = async (): Promise<object> =>
    (await import('./openapi.js')).openApiDocument(config, deps.scopes.list());
  router.use(openApiApi(document, kit).router);
  // Every declared endpoint is served: the document describes no route that is not (endpoint-table.ts).
  const missing = unmounted(ENDPOINTS);
  if (missing.length > 0) {
    throw new Error(`Declared, not served: ${missing.map(({ method, path }) => `${method} ${path}`).join(', ')}`);
  }
  return router;
}
