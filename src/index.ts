export { ServiceAuth } from './service-auth.js';
export { ConfigError } from './config.js';
export { AuthError, PasswordRulesError, ValidationError } from './errors.js';
export { AuthUser } from './users/auth-user.js';
export { consoleLogger } from './logger.js';

export type { AuthConfig, PasswordPolicy } from './config.js';
export type { ErrorCode, PasswordRuleFailure, ProblemDetails, ProblemItem } from './errors.js';
export type { Logger } from './logger.js';
export type { Rate } from './rate-limit/rates.js';
export type { PublicUser } from './users/auth-user.js';
export type { RoleInfo, RoleService } from './users/roles.js';
export type { NewUser, UserRef, UserService } from './users/service.js';
