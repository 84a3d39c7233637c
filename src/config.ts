/**
 * Every configuration key of the package, its parser and its default: the only place that reads
 * configuration. Each key is read from `app.get(KEY)`, then `process.env[KEY]`, then the default,
 * once, at construction; a bad value throws a ConfigError naming key, value and accepted form.
 */
import { parseRate, type Rate } from './rate-limit/rates.js';

export class ConfigError extends Error {
  override readonly name = 'ConfigError';

  constructor(
    readonly key: string,
    readonly value: unknown,
    readonly expected: string,
  ) {
    super(`${key}: ${describeValue(value)} is not valid; expected ${expected}`);
  }
}

export interface AuthConfig {
  readonly urlPrefix: string;
  readonly databaseUrl: string;
  readonly autoMigrate: boolean;
  readonly redisUrl: string | undefined;
  readonly publicUrl: string;
  readonly production: boolean;
  readonly rateLimit: {
    readonly enabled: boolean;
    readonly login: Rate;
    readonly register: Rate;
    readonly forgotPassword: Rate;
    readonly resetPassword: Rate;
    readonly loginFailures: Rate;
    readonly tokenFailures: Rate;
  };
  readonly passwords: PasswordPolicy;
  readonly tokens: {
    readonly prefix: string;
    readonly defaultExpiryDays: number;
    readonly maxExpiryDays: number;
    readonly maxPerUser: number;
    readonly revokeOnPasswordReset: boolean;
  };
  readonly sessions: {
    /** The configured name; the cookie actually set carries `__Host-` when secure. */
    readonly cookieName: string;
    readonly ttlSeconds: number;
    readonly secure: boolean;
  };
  readonly resetTokenTtlSeconds: number;
  readonly mail: {
    readonly outbox: string | undefined;
    readonly smtpUrl: string | undefined;
    readonly from: string;
  };
}

export interface PasswordPolicy {
  readonly minLength: number;
  readonly maxLength: number;
  readonly complexity: boolean;
  readonly blocklist: boolean;
}

/** Where a key's value comes from: the application's settings, then the environment. */
export interface ConfigSource {
  get(key: string): unknown;
}

/** An Express application's settings (or anything with `get(name)`), then the environment. */
export function sourceFrom(app: ConfigSource | undefined, env: NodeJS.ProcessEnv = process.env): ConfigSource {
  return {
    get(key) {
      const fromApp = app?.get(key);
      if (fromApp !== undefined && fromApp !== null) return fromApp;
      const fromEnv = env[key];
      // An empty environment variable is the usual way of leaving a key unset in shell scripts.
      return fromEnv === '' ? undefined : fromEnv;
    },
  };
}

const TEN_YEARS_DAYS = 3650;

const DEFAULT_RATES = {
  SERVICE_AUTH_RATE_LIMIT: '10 per minute',
  SERVICE_AUTH_RATE_LIMIT_LOGIN: '10 per minute',
  SERVICE_AUTH_RATE_LIMIT_REGISTER: '3 per minute',
  SERVICE_AUTH_RATE_LIMIT_FORGOT_PASSWORD: '3 per minute',
  SERVICE_AUTH_RATE_LIMIT_RESET_PASSWORD: '3 per minute',
  SERVICE_AUTH_RATE_LIMIT_LOGIN_FAILURES: '5 per minute',
  SERVICE_AUTH_RATE_LIMIT_TOKEN_FAILURES: '30 per minute',
} as const;

/**
 * Reads the whole configuration. `environment` is Express's `app.get('env')` (`NODE_ENV`, else
 * `development`); it decides the defaults that differ in production.
 */
export function readConfig(source: ConfigSource, environment = 'development'): AuthConfig {
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
  const maxLength = read('SERVICE_AUTH_MAX_PASSWORD_LENGTH', integerBetween(minLength, 4096, 'SERVICE_AUTH_MIN_PASSWORD_LENGTH'), Math.max(256, minLength));
  const maxExpiryDays = read('SERVICE_AUTH_TOKEN_MAX_EXPIRY_DAYS', integerBetween(1, TEN_YEARS_DAYS), 365);

  const publicUrl = optional('SERVICE_AUTH_PUBLIC_URL', httpUrl);
  if (publicUrl === undefined && production) {
    throw new ConfigError('SERVICE_AUTH_PUBLIC_URL', undefined, "an http(s) URL: it is required when app.get('env') is 'production'");
  }

  return {
    urlPrefix: read('SERVICE_AUTH_URL_PREFIX', urlPath, '/service-auth'),
    databaseUrl: read('SERVICE_AUTH_DATABASE_URL', databaseUrl, 'sqlite:service-auth.sqlite'),
    autoMigrate: read('SERVICE_AUTH_AUTO_MIGRATE', boolean, true),
    redisUrl: optional('SERVICE_AUTH_REDIS_URL', urlWithScheme(['redis:', 'rediss:'])),
    publicUrl: publicUrl ?? `http://localhost:${process.env['PORT'] || 3000}`,
    production,
    rateLimit: {
      enabled: read('SERVICE_AUTH_RATE_LIMIT_ENABLED', boolean, true),
      login: endpointRate('SERVICE_AUTH_RATE_LIMIT_LOGIN'),
      register: endpointRate('SERVICE_AUTH_RATE_LIMIT_REGISTER'),
      forgotPassword: endpointRate('SERVICE_AUTH_RATE_LIMIT_FORGOT_PASSWORD'),
      resetPassword: endpointRate('SERVICE_AUTH_RATE_LIMIT_RESET_PASSWORD'),
      loginFailures: ownRate('SERVICE_AUTH_RATE_LIMIT_LOGIN_FAILURES'),
      tokenFailures: ownRate('SERVICE_AUTH_RATE_LIMIT_TOKEN_FAILURES'),
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
      cookieName: read('SERVICE_AUTH_SESSION_COOKIE', matching(/^[!#$%&'*+\-.^_`|~0-9A-Za-z]{1,64}$/, 'a cookie name (1 to 64 token characters)'), 'service_auth_session'),
      ttlSeconds: read('SERVICE_AUTH_SESSION_TTL', integerBetween(1, TEN_YEARS_DAYS * 86_400), 1_209_600),
      secure: read('SERVICE_AUTH_SESSION_COOKIE_SECURE', boolean, production),
    },
    resetTokenTtlSeconds: read('SERVICE_AUTH_RESET_TOKEN_TTL', integerBetween(1, 30 * 86_400), 3600),
    mail: {
      outbox: optional('SERVICE_AUTH_MAIL_OUTBOX', nonEmptyString('a directory path')),
      smtpUrl: optional('SERVICE_AUTH_SMTP_URL', urlWithScheme(['smtp:', 'smtps:'])),
      from: read('SERVICE_AUTH_MAIL_FROM', mailAddress, 'no-reply@localhost'),
    },
  };
}

// ---- parsers: each takes the raw value and the key, and returns the parsed value or throws ----

export function boolean(value: unknown, key: string): boolean {
  if (typeof value === 'boolean') return value;
  if (typeof value === 'string') {
    const word = value.trim().toLowerCase();
    if (['true', '1', 'yes'].includes(word)) return true;
    if (['false', '0', 'no'].includes(word)) return false;
  }
  if (value === 1 || value === 0) return value === 1;
  throw new ConfigError(key, value, 'a boolean: true/false, 1/0 or yes/no');
}

export function integer(value: unknown, key: string): number {
  if (typeof value === 'number' && Number.isSafeInteger(value)) return value;
  if (typeof value === 'string' && /^\s*-?\d+\s*$/.test(value)) {
    const parsed = Number(value);
    if (Number.isSafeInteger(parsed)) return parsed;
  }
  throw new ConfigError(key, value, 'an integer');
}

/** An integer within bounds; `minKey` and `maxKey` name the keys the bounds come from, if any. */
export function integerBetween(min: number, max: number, minKey?: string, maxKey?: string) {
  const expected = `an integer from ${min}${minKey ? ` (${minKey})` : ''} to ${max}${maxKey ? ` (${maxKey})` : ''}`;
  return (value: unknown, key: string): number => {
    const parsed = integerOr(value, key, expected);
    if (parsed < min || parsed > max) throw new ConfigError(key, value, expected);
    return parsed;
  };
}

function integerOr(value: unknown, key: string, expected: string): number {
  try {
    return integer(value, key);
  } catch {
    throw new ConfigError(key, value, expected);
  }
}

export function rate(value: unknown, key: string): Rate {
  const expected = 'a rate such as "10 per minute" or "10/minute" (unit second, minute, hour or day; count at least 1)';
  if (typeof value !== 'string') throw new ConfigError(key, value, expected);
  try {
    return parseRate(value);
  } catch {
    throw new ConfigError(key, value, expected);
  }
}

export function urlPath(value: unknown, key: string): string {
  const expected = 'a path below the root, such as /service-auth';
  // Not "/" itself: links are built as prefix + "/login", and "//login" would name another host.
  if (typeof value !== 'string' || !/^\/[A-Za-z0-9._~!$&'()*+,;=:@/-]*[A-Za-z0-9._~!$&'()*+,;=:@-]\/?$/.test(value) || value.includes('//')) {
    throw new ConfigError(key, value, expected);
  }
  // Express mounts "/auth" and "/auth/" the same way; keep one spelling for building links.
  return value.replace(/\/$/, '');
}

export function databaseUrl(value: unknown, key: string): string {
  const expected = 'sqlite:<path>, sqlite::memory: or postgresql://user@host:port/database';
  if (typeof value === 'string') {
    if (/^sqlite:.+/.test(value)) return value;
    if (/^postgres(ql)?:\/\/./.test(value)) {
      try {
        new URL(value);
        return value;
      } catch {
        // fall through to the error
      }
    }
  }
  throw new ConfigError(key, redactUrl(String(value)), expected);
}

export function httpUrl(value: unknown, key: string): string {
  const url = urlWithScheme(['http:', 'https:'])(value, key);
  // Links are built as publicUrl + prefix + path: keep no trailing slash.
  return url.replace(/\/+$/, '');
}

export function urlWithScheme(schemes: string[]) {
  const expected = `a URL starting with ${schemes.map((s) => `${s}//`).join(' or ')}`;
  return (value: unknown, key: string): string => {
    if (typeof value === 'string') {
      try {
        const url = new URL(value);
        if (schemes.includes(url.protocol) && url.host) return value;
      } catch {
        // fall through to the error
      }
    }
    throw new ConfigError(key, typeof value === 'string' ? redactUrl(value) : value, expected);
  };
}

export function matching(pattern: RegExp, expected: string) {
  return (value: unknown, key: string): string => {
    if (typeof value === 'string' && pattern.test(value)) return value;
    throw new ConfigError(key, value, expected);
  };
}

export function nonEmptyString(expected: string) {
  return (value: unknown, key: string): string => {
    if (typeof value === 'string' && value.trim() !== '') return value;
    throw new ConfigError(key, value, expected);
  };
}

export function mailAddress(value: unknown, key: string): string {
  // "addr@host" or "Display Name <addr@host>", as nodemailer accepts them.
  if (typeof value === 'string' && /^(?:[^<>@]*<[^\s<>@]+@[^\s<>@]+>|[^\s<>@]+@[^\s<>@]+)$/.test(value.trim())) {
    return value.trim();
  }
  throw new ConfigError(key, value, 'a mail address such as no-reply@example.com or "Example <no-reply@example.com>"');
}

/** The URL with any password replaced, for messages and logs. */
export function redactUrl(url: string): string {
  try {
    const parsed = new URL(url);
    if (parsed.password) {
      parsed.password = '***';
      return parsed.toString();
    }
  } catch {
    // not a URL: nothing to redact by structure; hide anything that looks like user:password@
  }
  return url.replace(/(\/\/[^:/@]+):[^@/]*@/, '$1:***@');
}

function describeValue(value: unknown): string {
  if (value === undefined) return 'no value';
  if (typeof value === 'string') return JSON.stringify(value);
  try {
    return JSON.stringify(value) ?? String(value);
  } catch {
    return String(value);
  }
}
