/**
 * `SERVICE_AUTH_*` keys the package does not know, in the application's settings or the
 * environment: most often a typo, which would otherwise leave the default in force without a word.
 * Each is reported with the known key nearest to it. The package's own test and benchmark suites
 * read `SERVICE_AUTH_TEST_*` and `SERVICE_AUTH_BENCH_*`, which are therefore not reported.
 */
import { closest } from 'fastest-levenshtein';
import { ssoKeysFor } from './sso.js';

/** Every key `readConfig` reads. */
export const CONFIG_KEYS: readonly string[] = [
  'SERVICE_AUTH_URL_PREFIX',
  'SERVICE_AUTH_DATABASE_URL',
  'SERVICE_AUTH_AUTO_MIGRATE',
  'SERVICE_AUTH_REDIS_URL',
  'SERVICE_AUTH_REDIS_PREFIX',
  'SERVICE_AUTH_SECRET',
  'SERVICE_AUTH_PUBLIC_URL',
  'SERVICE_AUTH_INSECURE_FAST_HASHING',
  'SERVICE_AUTH_BODY_TIMEOUT_MS',
  'SERVICE_AUTH_RATE_LIMIT_ENABLED',
  'SERVICE_AUTH_RATE_LIMIT',
  'SERVICE_AUTH_RATE_LIMIT_LOGIN',
  'SERVICE_AUTH_RATE_LIMIT_REGISTER',
  'SERVICE_AUTH_RATE_LIMIT_FORGOT_PASSWORD',
  'SERVICE_AUTH_RATE_LIMIT_RESET_PASSWORD',
  'SERVICE_AUTH_RATE_LIMIT_LOGIN_FAILURES',
  'SERVICE_AUTH_RATE_LIMIT_SECOND_FACTOR_FAILURES',
  'SERVICE_AUTH_RATE_LIMIT_TOKEN_FAILURES',
  'SERVICE_AUTH_RATE_LIMIT_TOKEN_CREATION',
  'SERVICE_AUTH_RATE_LIMIT_ORGS',
  'SERVICE_AUTH_MIN_PASSWORD_LENGTH',
  'SERVICE_AUTH_MAX_PASSWORD_LENGTH',
  'SERVICE_AUTH_PASSWORD_COMPLEXITY_ENABLED',
  'SERVICE_AUTH_PASSWORD_BLOCKLIST_ENABLED',
  'SERVICE_AUTH_TOKEN_PREFIX',
  'SERVICE_AUTH_TOKEN_DEFAULT_EXPIRY_DAYS',
  'SERVICE_AUTH_TOKEN_MAX_EXPIRY_DAYS',
  'SERVICE_AUTH_MAX_TOKENS_PER_USER',
  'SERVICE_AUTH_REVOKE_TOKENS_ON_PASSWORD_RESET',
  'SERVICE_AUTH_SESSION_COOKIE',
  'SERVICE_AUTH_SESSION_TTL',
  'SERVICE_AUTH_SESSION_COOKIE_SECURE',
  'SERVICE_AUTH_MAX_SESSIONS_PER_USER',
  'SERVICE_AUTH_RESET_TOKEN_TTL',
  'SERVICE_AUTH_EMAIL_CONFIRMATION',
  'SERVICE_AUTH_CONFIRM_TOKEN_TTL',
  'SERVICE_AUTH_DEFAULT_ROLES',
  'SERVICE_AUTH_TENANT_FIELD',
  'SERVICE_AUTH_TENANT_RLS',
  'SERVICE_AUTH_ORG_OWNER_ROLES',
  'SERVICE_AUTH_ORG_CREATION',
  'SERVICE_AUTH_MAX_ORGS_PER_USER',
  'SERVICE_AUTH_INVITATION_TTL',
  'SERVICE_AUTH_IMPERSONATION_TTL',
  'SERVICE_AUTH_AUDIT_ENABLED',
  'SERVICE_AUTH_AUDIT_RETENTION_DAYS',
  'SERVICE_AUTH_MAIL_OUTBOX',
  'SERVICE_AUTH_SMTP_URL',
  'SERVICE_AUTH_MAIL_FROM',
  'SERVICE_AUTH_SSO_PROVIDERS',
  'SERVICE_AUTH_SSO_REGISTRATION',
  'SERVICE_AUTH_SSO_TIMEOUT',
];

const OURS = /^SERVICE_AUTH_/;
const TOOLING = /^SERVICE_AUTH_(?:TEST|BENCH)_/;

export interface UnknownKey {
  key: string;
  /** Where it was found. */
  source: 'settings' | 'environment';
  /** The known key nearest to it. */
  nearest: string;
}

/** The unknown keys among the application's settings and the environment, each once. */
export function unknownKeys(settings: Record<string, unknown> | undefined, env: NodeJS.ProcessEnv): UnknownKey[] {
  // A provider's keys are known once SERVICE_AUTH_SSO_PROVIDERS lists it (read as readConfig does).
  const fromEnv = env['SERVICE_AUTH_SSO_PROVIDERS'];
  const providers = settings?.['SERVICE_AUTH_SSO_PROVIDERS'] ?? (fromEnv === '' ? undefined : fromEnv);
  const sso = ssoKeysFor(providers);
  const known = new Set([...CONFIG_KEYS, ...sso]);
  const found = new Map<string, UnknownKey>();
  const look = (keys: string[], source: UnknownKey['source']) => {
    for (const key of keys) {
      if (!OURS.test(key) || TOOLING.test(key) || known.has(key) || found.has(key)) continue;
      found.set(key, { key, source, nearest: nearestKey(key, sso) });
    }
  };
  look(Object.keys(settings ?? {}), 'settings');
  look(Object.keys(env), 'environment');
  return [...found.values()];
}

/** The known key with the fewest edits from `key` (Levenshtein distance); `extra`, the listed providers' keys. */
export function nearestKey(key: string, extra: readonly string[] = []): string {
  return closest(key, [...CONFIG_KEYS, ...extra]);
}
