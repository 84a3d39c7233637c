/**
 * Every configuration key of the package, its parser and its default: the only place that reads
 * configuration. Each key is read from `app.get(KEY)`, then `process.env[KEY]`, then the default,
 * once, at construction; a bad value throws a ConfigError naming key, value and accepted form.
 * The shape it returns is config.ts; where values come from is source.ts.
 */
import type { AuthConfig } from './config.js';
import type { ConfigSource } from './source.js';
import { parseRate, type Rate } from './rates.js';
import { ConfigError } from './error.js';
import { assumedPublicUrl } from './public-url.js';
import { readSsoConfig } from './sso.js';
import {
  boolean,
  databaseUrl,
  httpUrl,
  integerBetween,
  mailAddress,
  matching,
  nonEmpty,
  nonEmptyString,
  rate,
  rateOrCountPerMinute,
  roleNames,
  secret,
  urlPath,
  urlWithScheme,
} from './parsers.js';

const TEN_YEARS_DAYS = 3650;

const DEFAULT_RATES = {
  SERVICE_AUTH_RATE_LIMIT: '10 per minute',
  SERVICE_AUTH_RATE_LIMIT_LOGIN: '10 per minute',
  SERVICE_AUTH_RATE_LIMIT_REGISTER: '3 per minute',
  SERVICE_AUTH_RATE_LIMIT_FORGOT_PASSWORD: '3 per minute',
  SERVICE_AUTH_RATE_LIMIT_RESET_PASSWORD: '3 per minute',
  SERVICE_AUTH_RATE_LIMIT_LOGIN_FAILURES: '5 per minute',
  SERVICE_AUTH_RATE_LIMIT_SECOND_FACTOR_FAILURES: '10 per day',
  SERVICE_AUTH_RATE_LIMIT_TOKEN_FAILURES: '30 per minute',
  SERVICE_AUTH_RATE_LIMIT_TOKEN_CREATION: '10 per minute',
  SERVICE_AUTH_RATE_LIMIT_ORGS: '5 per minute',
} as const;

/**
 * Reads the whole configuration. `environment` is Express's `app.get('env')` (`NODE_ENV`, else
 * `development`); it decides the defaults that differ in production. `warn` hears of each default
 * a developer should know was assumed (ServiceAuth logs them once construction is done).
 */
export function readConfig(
  source: ConfigSource,
  environment = 'development',
  warn: (message: string) => void = () => undefined,
): AuthConfig {
  const production = environment === 'production';
  const read = <T>(key: string, parse: (value: unknown, key: string) => T, fallback: T): T => {
    const value = source.get(key);
    return value === undefined ? fallback : parse(value, key);
  };
  const optional = <T>(key: string, parse: (value: unknown, key: string) => T): T | undefined => {
    const value = source.get(key);
    return value === undefined ? undefined : parse(value, key);
  };

  // Rate precedence for the four auth endpoints: own key, else the global fallback, else own default.
  const globalRate = optional('SERVICE_AUTH_RATE_LIMIT', rate);
  const endpointRate = (key: keyof typeof DEFAULT_RATES): Rate =>
    optional(key, rate) ?? globalRate ?? parseRate(DEFAULT_RATES[key]);
  const ownRate = (key: keyof typeof DEFAULT_RATES): Rate => read(key, rate, parseRate(DEFAULT_RATES[key]));

  // Upper bounds keep values within what the rest of the package can represent (a date), hash
  // (a password) or would sensibly want; each is far beyond any reasonable setting.
  const minLength = read('SERVICE_AUTH_MIN_PASSWORD_LENGTH', integerBetween(1, 1024), 12);
  const maxLength = read(
    'SERVICE_AUTH_MAX_PASSWORD_LENGTH',
    integerBetween(minLength, 4096, 'SERVICE_AUTH_MIN_PASSWORD_LENGTH'),
    Math.max(256, minLength),
  );
  const maxExpiryDays = read('SERVICE_AUTH_TOKEN_MAX_EXPIRY_DAYS', integerBetween(1, TEN_YEARS_DAYS), 365);

  const publicUrl = optional('SERVICE_AUTH_PUBLIC_URL', httpUrl) ?? assumedPublicUrl(production, warn);
  const insecureFastHashing = read('SERVICE_AUTH_INSECURE_FAST_HASHING', boolean, false);
  if (insecureFastHashing && production)
    throw new ConfigError(
      'SERVICE_AUTH_INSECURE_FAST_HASHING',
      true,
      "false: fast hashing is for tests, refused when app.get('env') is 'production'",
    );

  return {
    urlPrefix: read('SERVICE_AUTH_URL_PREFIX', urlPath, '/service-auth'),
    databaseUrl: read('SERVICE_AUTH_DATABASE_URL', databaseUrl, 'sqlite:service-auth.sqlite'),
    autoMigrate: read('SERVICE_AUTH_AUTO_MIGRATE', boolean, true),
    redisUrl: optional('SERVICE_AUTH_REDIS_URL', urlWithScheme(['redis:', 'rediss:'])),
    redisPrefix: read(
      'SERVICE_AUTH_REDIS_PREFIX',
      matching(/^[\w:.-]{1,64}$/, 'up to 64 letters, digits, _, :, . or -'),
      '',
    ),
    secret: optional('SERVICE_AUTH_SECRET', secret(32)),
    publicUrl,
    production,
    insecureFastHashing,
    // Node's own server.requestTimeout (300 s by default) bounds it from above.
    bodyTimeoutMs: read('SERVICE_AUTH_BODY_TIMEOUT_MS', integerBetween(1, 300_000), 10_000),
    rateLimit: {
      enabled: read('SERVICE_AUTH_RATE_LIMIT_ENABLED', boolean, true),
      login: endpointRate('SERVICE_AUTH_RATE_LIMIT_LOGIN'),
      register: endpointRate('SERVICE_AUTH_RATE_LIMIT_REGISTER'),
      forgotPassword: endpointRate('SERVICE_AUTH_RATE_LIMIT_FORGOT_PASSWORD'),
      resetPassword: endpointRate('SERVICE_AUTH_RATE_LIMIT_RESET_PASSWORD'),
      loginFailures: ownRate('SERVICE_AUTH_RATE_LIMIT_LOGIN_FAILURES'),
      secondFactorFailures: ownRate('SERVICE_AUTH_RATE_LIMIT_SECOND_FACTOR_FAILURES'),
      tokenFailures: ownRate('SERVICE_AUTH_RATE_LIMIT_TOKEN_FAILURES'),
      tokenCreation: ownRate('SERVICE_AUTH_RATE_LIMIT_TOKEN_CREATION'),
      orgCreation: read(
        'SERVICE_AUTH_RATE_LIMIT_ORGS',
        rateOrCountPerMinute,
        parseRate(DEFAULT_RATES.SERVICE_AUTH_RATE_LIMIT_ORGS),
      ),
    },
    passwords: {
      minLength,
      maxLength,
      complexity: read('SERVICE_AUTH_PASSWORD_COMPLEXITY_ENABLED', boolean, true),
      blocklist: read('SERVICE_AUTH_PASSWORD_BLOCKLIST_ENABLED', boolean, false),
    },
    tokens: {
      prefix: read('SERVICE_AUTH_TOKEN_PREFIX', matching(/^[a-z0-9]{1,10}$/, '1 to 10 characters of [a-z0-9]'), 'sat'),
      defaultExpiryDays: read(
        'SERVICE_AUTH_TOKEN_DEFAULT_EXPIRY_DAYS',
        integerBetween(1, maxExpiryDays, undefined, 'SERVICE_AUTH_TOKEN_MAX_EXPIRY_DAYS'),
        Math.min(90, maxExpiryDays),
      ),
      maxExpiryDays,
      maxPerUser: read('SERVICE_AUTH_MAX_TOKENS_PER_USER', integerBetween(1, 100_000), 100),
      revokeOnPasswordReset: read('SERVICE_AUTH_REVOKE_TOKENS_ON_PASSWORD_RESET', boolean, true),
    },
    sessions: {
      cookieName: read(
        'SERVICE_AUTH_SESSION_COOKIE',
        matching(/^[!#$%&'*+\-.^_`|~0-9A-Za-z]{1,64}$/, 'a cookie name (1 to 64 token characters)'),
        'service_auth_session',
      ),
      ttlSeconds: read('SERVICE_AUTH_SESSION_TTL', integerBetween(1, TEN_YEARS_DAYS * 86_400), 1_209_600),
      secure: read('SERVICE_AUTH_SESSION_COOKIE_SECURE', boolean, production),
      maxPerUser: read('SERVICE_AUTH_MAX_SESSIONS_PER_USER', integerBetween(1, 10_000), 50),
      impersonationTtlSeconds: read('SERVICE_AUTH_IMPERSONATION_TTL', integerBetween(1, 86_400), 3600),
    },
    resetTokenTtlSeconds: read('SERVICE_AUTH_RESET_TOKEN_TTL', integerBetween(1, 30 * 86_400), 3600),
    emailConfirmation: {
      enabled: read('SERVICE_AUTH_EMAIL_CONFIRMATION', boolean, false),
      tokenTtlSeconds: read('SERVICE_AUTH_CONFIRM_TOKEN_TTL', integerBetween(1, 30 * 86_400), 86_400),
    },
    defaultRoles: read('SERVICE_AUTH_DEFAULT_ROLES', roleNames, []),
    tenantField: read(
      'SERVICE_AUTH_TENANT_FIELD',
      matching(/^[A-Za-z_][A-Za-z0-9_]{0,63}$/, 'a property name: a letter or _, then letters, digits or _ (up to 64)'),
      'org_id',
    ),
    tenantRls: read('SERVICE_AUTH_TENANT_RLS', boolean, false),
    orgs: {
      ownerRoles: read('SERVICE_AUTH_ORG_OWNER_ROLES', nonEmpty(roleNames), ['owner']),
      creation: read('SERVICE_AUTH_ORG_CREATION', matching(/^(?:anyone|admins)$/, '`anyone` or `admins`'), 'anyone') as
        'anyone' | 'admins',
      invitationTtlSeconds: read('SERVICE_AUTH_INVITATION_TTL', integerBetween(1, 90 * 86_400), 7 * 86_400),
      maxOwnedPerUser: read('SERVICE_AUTH_MAX_ORGS_PER_USER', integerBetween(1, 1_000_000), 50),
    },
    audit: {
      enabled: read('SERVICE_AUTH_AUDIT_ENABLED', boolean, true),
      retentionDays: read('SERVICE_AUTH_AUDIT_RETENTION_DAYS', integerBetween(1, TEN_YEARS_DAYS * 10), 365),
    },
    sso: readSsoConfig((key) => source.get(key)),
    mail: {
      outbox: optional('SERVICE_AUTH_MAIL_OUTBOX', nonEmptyString('a directory path')),
      smtpUrl: optional('SERVICE_AUTH_SMTP_URL', urlWithScheme(['smtp:', 'smtps:'])),
      from: read('SERVICE_AUTH_MAIL_FROM', mailAddress, 'no-reply@localhost'),
    },
  };
}
