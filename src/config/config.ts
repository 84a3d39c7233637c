/**
 * The shape of the configuration as the rest of the package sees it: every setting, documented by
 * the key it comes from. Kept apart from the reading (read-config.ts: parsers, defaults, the checks
 * across keys) so that the many modules that only need the type do not import the reader.
 */
import type { Rate } from './rates.js';
import type { SsoConfig } from './sso.js';

export interface AuthConfig {
  readonly urlPrefix: string;
  readonly databaseUrl: string;
  readonly autoMigrate: boolean;
  readonly redisUrl: string | undefined;
  /**
   * SERVICE_AUTH_REDIS_PREFIX: put before every key the package writes to Redis, so that several
   * deployments (or test runs) can share one Redis without counting each other's requests.
   */
  readonly redisPrefix: string;
  /**
   * SERVICE_AUTH_SECRET: the key of what the package derives and shares (with Redis, which tokens
   * verified, as HMACs). Never logged, never stored.
   */
  readonly secret: string | undefined;
  readonly publicUrl: string;
  readonly production: boolean;
  /** SERVICE_AUTH_INSECURE_FAST_HASHING: cheap argon2 and PBKDF2 costs for test suites; refused in production. */
  readonly insecureFastHashing: boolean;
  /** SERVICE_AUTH_BODY_TIMEOUT_MS: how long a request's whole body may take to arrive. */
  readonly bodyTimeoutMs: number;
  readonly rateLimit: {
    readonly enabled: boolean;
    readonly login: Rate;
    readonly register: Rate;
    readonly forgotPassword: Rate;
    readonly resetPassword: Rate;
    readonly loginFailures: Rate;
    /** Wrong authenticator codes per account, from every client (NIST SP 800-63B §5.2.2). */
    readonly secondFactorFailures: Rate;
    readonly tokenFailures: Rate;
    /** Tokens created per user (POST /api/tokens, from the API or the tokens page). */
    readonly tokenCreation: Rate;
    /** SERVICE_AUTH_RATE_LIMIT_ORGS: organizations created per user over HTTP (POST /api/orgs, the organizations page). */
    readonly orgCreation: Rate;
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
    /** SERVICE_AUTH_MAX_SESSIONS_PER_USER: a login past it ends the user's oldest sessions. */
    readonly maxPerUser: number;
    /** SERVICE_AUTH_IMPERSONATION_TTL: how long acting as another user lasts (docs/impersonation.md). */
    readonly impersonationTtlSeconds: number;
  };
  readonly resetTokenTtlSeconds: number;
  readonly emailConfirmation: {
    /** SERVICE_AUTH_EMAIL_CONFIRMATION: registration mails a link, and logging in waits for it. */
    readonly enabled: boolean;
    /** SERVICE_AUTH_CONFIRM_TOKEN_TTL: how long a confirmation link (or an email change's) works. */
    readonly tokenTtlSeconds: number;
  };
  /** Roles every user who registers over HTTP is given (SERVICE_AUTH_DEFAULT_ROLES). */
  readonly defaultRoles: readonly string[];
  /** SERVICE_AUTH_TENANT_FIELD: the field of a subject that names its organization, bound in every organization role's rule. */
  readonly tenantField: string;
  /** SERVICE_AUTH_TENANT_RLS: PostgreSQL row-level security on the tenant tables of `auth.enforce`'s ORM. */
  readonly tenantRls: boolean;
  readonly orgs: {
    /** SERVICE_AUTH_ORG_OWNER_ROLES: the organization roles of an owner; every organization keeps a member with one. */
    readonly ownerRoles: readonly string[];
    /**
     * SERVICE_AUTH_ORG_CREATION: who may create an organization over HTTP (`admins`: global admins and
     * holders of `create Organization`).
     */
    readonly creation: 'anyone' | 'admins';
    /** SERVICE_AUTH_INVITATION_TTL: how long an invitation to an organization works. */
    readonly invitationTtlSeconds: number;
    /** SERVICE_AUTH_MAX_ORGS_PER_USER: the organizations one user may own (hold an owner role in); past it 409 `too_many_organizations`. */
    readonly maxOwnedPerUser: number;
  };
  readonly audit: {
    /** SERVICE_AUTH_AUDIT_ENABLED: security-relevant actions are appended to `auth_events`. */
    readonly enabled: boolean;
    /** SERVICE_AUTH_AUDIT_RETENTION_DAYS: rows older than this are pruned, the chain kept verifiable. */
    readonly retentionDays: number;
  };
  /** Sign-in through identity providers (SERVICE_AUTH_SSO_*, config/sso.ts). */
  readonly sso: SsoConfig;
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
