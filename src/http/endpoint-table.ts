/**
 * Every endpoint of the package, declared where its router is (api/*.ts, pages/*-routes.ts): the
 * OpenAPI document describes exactly these (openapi.ts), and the routes check that each is served
 * (routes.ts).
 */
import { abilitiesEndpoint } from './api/abilities.js';
import { TOKEN_ENDPOINTS } from './api/tokens.js';
import { INVITATION_ENDPOINTS } from './api/invitations.js';
import { MEMBER_ENDPOINTS } from './api/org-members.js';
import { ORG_ENDPOINTS } from './api/orgs.js';
import { invitationPage } from './pages/invitation-routes.js';
import { ORG_PAGES } from './pages/org-endpoints.js';
import { MFA_ENDPOINTS } from './api/mfa.js';
import { PASSKEY_ENDPOINTS } from './api/passkeys.js';
import { PROFILE_ENDPOINTS } from './api/profile.js';
import { securityLog } from './api/security-log.js';
import { SESSION_ENDPOINTS } from './api/sessions.js';
import { ACCOUNT_ENDPOINTS } from './api/account.js';
import { LINK_ENDPOINTS } from './api/links.js';
import { LOGIN_STEP_ENDPOINTS } from './api/login-steps.js';
import { ACCOUNT_PAGES } from './pages/account-routes.js';
import { CONFIRM_PAGES } from './pages/confirm-routes.js';
import { IDENTITY_ENDPOINTS } from './api/identities.js';
import { IMPERSONATION_ENDPOINTS } from './api/impersonation.js';
import { stopImpersonationForm } from './pages/impersonation-routes.js';
import { SSO_PAGES } from './pages/sso-routes.js';
import { adminAudit, adminVerifyAuditChain } from './pages/admin/audit-routes.js';
import { adminOrg, adminOrgs } from './pages/admin/org-routes.js';
import { adminPolicy } from './pages/admin/policy-routes.js';
import { adminHome } from './pages/admin/routes.js';
import { USER_CONSOLE } from './pages/admin/user-endpoints.js';
import { openApi } from './api/openapi.js';
import type { Endpoint } from './endpoints/endpoint.js';
import { MFA_PAGES } from './pages/mfa-routes.js';
import { PASSKEY_PAGES } from './pages/passkeys-routes.js';
import { PROFILE_PAGES } from './pages/profile-routes.js';
import { securityLogPage } from './pages/security-log-routes.js';
import { SESSION_PAGES } from './pages/session-routes.js';
import { TOKEN_PAGES } from './pages/token-routes.js';

export const ENDPOINTS: readonly Endpoint[] = [
  ...ACCOUNT_PAGES,
  ...CONFIRM_PAGES,
  ...ACCOUNT_ENDPOINTS,
  ...LOGIN_STEP_ENDPOINTS,
  ...LINK_ENDPOINTS,
  ...PROFILE_ENDPOINTS,
  ...SESSION_ENDPOINTS,
  ...MFA_ENDPOINTS,
  ...PASSKEY_ENDPOINTS,
  securityLog,
  ...PROFILE_PAGES,
  ...MFA_PAGES,
  ...PASSKEY_PAGES,
  ...SESSION_PAGES,
  securityLogPage,
  ...TOKEN_PAGES,
  ...TOKEN_ENDPOINTS,
  abilitiesEndpoint,
  ...ORG_ENDPOINTS,
  ...MEMBER_ENDPOINTS,
  ...INVITATION_ENDPOINTS,
  ...ORG_PAGES,
  invitationPage,
  ...IMPERSONATION_ENDPOINTS,
  stopImpersonationForm,
  ...SSO_PAGES,
  ...IDENTITY_ENDPOINTS,
  adminHome,
  ...USER_CONSOLE,
  adminOrgs,
  adminOrg,
  adminAudit,
  adminVerifyAuditChain,
  adminPolicy,
  openApi,
];
