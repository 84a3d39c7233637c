export { ServiceAuth } from './service-auth.js';
export { ConfigError } from './config.js';
export { AuthError, PasswordRulesError, ValidationError } from './errors.js';
export { AuthUser } from './users/auth-user.js';
export { routeContext } from './authorization/context.js';
export { consoleLogger } from './logger.js';
export { defaultPageTexts } from './http/pages/texts.js';

export type { AppAbility, AppRule } from './authorization/abilities.js';
export type { RouteContext } from './authorization/context.js';
export type { AuthMethod } from './authorization/credentials.js';
export type { RequireOptions } from './authorization/guards.js';
export type { Policy, PolicyContext } from './authorization/policies.js';
export type { Principal, PrincipalLike } from './authorization/principal.js';
export type { RoleRule } from './authorization/role-rules.js';
export type { AuthConfig, PasswordPolicy } from './config.js';
export type { ErrorCode, PasswordRuleFailure, ProblemDetails, ProblemItem } from './errors.js';
export type { EventHandler, EventName } from './events.js';
// Also brings the Express Request augmentation (req.user, req.ability, req.authMethod, req.token).
export type { RequestToken } from './express-request.js';
export type { Logger } from './logger.js';
export type { Mail, MailTransport } from './mail/index.js';
export type { PageTexts } from './http/pages/texts.js';
export type { Rate } from './rate-limit/rates.js';
export type { PublicUser } from './users/auth-user.js';
export type { RoleInfo, RoleService } from './users/roles.js';
export type { NewUser, UserRef, UserService } from './users/service.js';
