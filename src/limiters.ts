/**
 * The rate limiters of a ServiceAuth, made from the configuration: the endpoints', and those that
 * count failures. Absent when SERVICE_AUTH_RATE_LIMIT_ENABLED is false.
 */
import type { AuthConfig } from './config/config.js';
import type { Rate } from './config/rates.js';
import type { EndpointLimiters } from './http/actions/checks.js';
import { createLimiter, type Limiter } from './rate-limit/limiter.js';
import type { SharedRedis } from './rate-limit/shared-redis.js';

/**
 * The endpoints' limiters, and those that count failures: logins per (email, client) pair, wrong
 * authenticator codes per account, bearer tokens per client.
 */
export interface Limiters extends EndpointLimiters {
  loginFailures: Limiter;
  secondFactorFailures: Limiter;
  tokenFailures: Limiter;
}

export function createLimiters(
  rateLimit: AuthConfig['rateLimit'],
  redis: SharedRedis | undefined,
): Limiters | undefined {
  if (!rateLimit.enabled) return undefined;
  const limiter = (name: string, rate: Rate) =>
    createLimiter({ name, rate, redis: redis?.client, onRedisFailure: () => redis?.fellBack() });
  return {
    login: limiter('login', rateLimit.login),
    register: limiter('register', rateLimit.register),
    forgotPassword: limiter('forgot', rateLimit.forgotPassword),
    resetPassword: limiter('reset', rateLimit.resetPassword),
    confirm: limiter('confirm', rateLimit.resetPassword),
    confirmationMail: limiter('confirmation-mail', rateLimit.forgotPassword),
    loginFailures: limiter('login-failures', rateLimit.loginFailures),
    secondFactorFailures: limiter('second-factor-failures', rateLimit.secondFactorFailures),
    tokenFailures: limiter('token-failures', rateLimit.tokenFailures),
    tokenCreation: limiter('token-creation', rateLimit.tokenCreation),
    orgCreation: limiter('org-creation', rateLimit.orgCreation),
  };
}
