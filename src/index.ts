export { ServiceAuth } from './service-auth.js';
export { ConfigError } from './config/error.js';
export { AuthError, LoginRequired, PasswordRulesError, ValidationError } from './errors.js';
export { AuthUser } from './users/auth-user.js';
export { routeContext } from './authorization/context.js';
export { consoleLogger } from './logger.js';
export { defaultPageTexts } from './http/pages/texts.js';
export { SERVICE_AUTH_TABLES } from './storage/tables.js';
export { BUSY_TIMEOUT_MS, sqliteOptions } from './storage/sqlite.js';

export type {
  AbilityTypes,
  AppAbility,
  AppActions,
  AppRule,
  AppSubjectTypes,
  TypedAbility,
} from './authorization/ability-types.js';
export type { RouteContext } from './authorization/context.js';
export type { AuthMethod } from './authentication/credentials.js';
export type { RequireOptions } from './authorization/guards.js';
export type { AccessibleByOptions } from './authorization/filters.js';
export type { EnforceOptions, EntityName } from './enforcement/enforcement.js';
export type { NotAnalysed, PolicyChange, PolicyDiff, Witness } from './authorization/analysis/diff.js';
export type { PolicyDocument, PolicySource } from './authorization/analysis/policy-sets.js';
export type { PolicyAnalysis } from './authorization/analysis/policy-analysis.js';
export type { AuditApi, AuditHandler, AuditQuery } from './audit/audit-log.js';
export type { ChainCheck } from './audit/chain.js';
export type { AuditDetail, AuditOutcome, AuditRecord, AuditType, Actor } from './audit/records.js';
export type { Policy, PolicyContext } from './authorization/policies.js';
export type { Principal, PrincipalLike, UserAttributeValues } from './authorization/principal.js';
export type { UserAttributeResolver } from './authorization/user-attributes.js';
export type { RoleRule } from './authorization/role-rules.js';
export type { DefinedRule } from './policy-definitions.js';
export type { ExplainedRule, Explanation, FailedCondition, WhyNotRule } from './authorization/explain.js';
export type { Coverage, RoleCoverage } from './authorization/coverage.js';
export type { PolicyTestReport, PolicyTestResult } from './authorization/policy-tests.js';
export type { LintReport, PolicyLintOptions } from './authorization/analysis/lint-roles.js';
export type { LintFinding, LintKind } from './authorization/analysis/lint.js';
export type { ScopeInfo, WithScopes } from './authorization/scope-rules.js';
export type { AuthConfig, PasswordPolicy } from './config/config.js';
export type { ErrorCode, PasswordRuleFailure, ProblemDetails, ProblemItem, SsoFailureReason } from './errors.js';
export type { IdentityProviderOptions, ProviderProfile } from './sso/providers.js';
export type { IdentityView } from './sso/identities.js';
export type { EventHandler, EventName, OrgEventDetail, OrgEventHandler, OrgEventName } from './events.js';
// Also brings the Express Request augmentation (req.user, req.ability, req.authMethod, req.token).
export type { RequestToken } from './express-request.js';
export type { Logger } from './logger.js';
export type { Mail, MailTransport } from './mail/index.js';
export type { AccountPageLocals } from './http/pages/account-pages.js';
export type {
  ConfirmEmailPageLocals,
  ConfirmEmailState,
  ConfirmPageLocals,
  ConfirmState,
} from './http/pages/confirm-pages.js';
export type { FieldError, FieldErrors } from './http/pages/fields.js';
export type { PageLocalsByName, PageName } from './http/pages/index.js';
export type { InvitationPageLocals, InvitationPageState } from './http/pages/invitation-page.js';
export type { InvitationRow, MemberRow, OrgPageLocals, OrgsPageLocals } from './http/pages/org-pages.js';
export type { OrgTexts } from './http/pages/org-texts.js';
export type { Notice } from './http/pages/layout.js';
export type { ProblemPageLocals } from './http/pages/problem-page.js';
export type { DeleteAccountPageLocals, EmailPageLocals, PasswordPageLocals } from './http/pages/profile-pages.js';
export type { ProfileTexts } from './http/pages/profile-texts.js';
export type { RevokePageLocals } from './http/pages/revoke-page.js';
export type { MfaPageLocals, SecondStepPageLocals, TotpSetupView } from './http/pages/mfa-pages.js';
export type { PasskeysPageLocals } from './http/pages/passkeys-page.js';
export type { IdentitiesPageLocals } from './http/pages/identities-page.js';
export type { PasskeyView } from './mfa/passkeys.js';
export type { SecurityLogPageLocals } from './http/pages/security-log-page.js';
export type { SessionsPageLocals } from './http/pages/sessions-page.js';
export type { PageTexts } from './http/pages/texts.js';
export type { DefinedScope, TokenFormValues, TokensPageLocals } from './http/pages/tokens-page.js';
export type { Rate } from './config/rates.js';
export type { GrantCheck, InvitationGrant, NewInvitation } from './orgs/invitations.js';
export type { NewOrg } from './orgs/organizations.js';
export type { OrgService } from './orgs/service.js';
export type {
  InvitationInfo,
  MemberInfo,
  MembershipInfo,
  OrgActor,
  OrgInfo,
  OrgRef,
  OrgSummary,
  PendingInvitation,
  UserOrg,
} from './orgs/views.js';
export type { SessionView } from './sessions/store.js';
export type { UserRef } from './storage/user-ref.js';
export type { SqliteOptions } from './storage/sqlite.js';
export type { CreatedToken, NewToken, TokenService, TokenView } from './tokens/service.js';
export type { AccountState, PublicUser } from './users/auth-user.js';
export type { NewUser } from './users/creation.js';
export type { Operator } from './users/admin-accounts.js';
export type { RoleInfo, RoleService, RoleStanding } from './users/roles.js';
export type { UserService } from './users/service.js';
