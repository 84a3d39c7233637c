/**
 * The parts of a ServiceAuth, built from one configuration, and how they are connected. A
 * ServiceAuth is these parts plus an Express application to mount the router on; the CLI uses
 * the parts alone, with no application.
 */
import { AuditLog } from './audit/audit-log.js';
import { CredentialResolver } from './authentication/credentials.js';
import { SignIn } from './authentication/sign-in.js';
import { AbilityFactory, type AppAbility } from './authorization/abilities.js';
import { Asking } from './authorization/asking.js';
import { Guards } from './authorization/guards.js';
import { Impersonation } from './impersonation/impersonation.js';
import { LoginTickets } from './mfa/login-tickets.js';
import { Passkeys } from './mfa/passkeys.js';
import { SecondFactors } from './mfa/second-factor.js';
import { SecretBox } from './mfa/secret-box.js';
import { PolicyRegistry } from './authorization/policies.js';
import { forgetCredentials } from './authorization/request-state.js';
import { OrgAccess } from './authorization/org-access.js';
import { OrgRoleRules, RoleRules } from './authorization/role-rules.js';
import { ScopeRules } from './authorization/scope-rules.js';
import { AttributeNames } from './authorization/attribute-names.js';
import { UserAttributes } from './authorization/user-attributes.js';
import { Tenant } from './authorization/tenant.js';
import type { AuthConfig } from './config/config.js';
import { AuthError } from './errors.js';
import { EventBus } from './events.js';
import { createMailTransport } from './mail/index.js';
import { OrgService } from './orgs/service.js';
import { ARGON2_OPTIONS, FAST_ARGON2_OPTIONS, PasswordHasher } from './passwords/hashing.js';
import { Pluggable } from './pluggable.js';
import type { MailTransport } from './mail/transport.js';
import { createLimiters, type Limiters } from './limiters.js';
import { SharedRedis } from './rate-limit/shared-redis.js';
import { SessionCookie } from './sessions/cookie.js';
import { ImpersonationSessions } from './sessions/impersonation-sessions.js';
import { SessionStore } from './sessions/store.js';
import { createSso, type SsoParts } from './sso/parts.js';
import { Storage } from './storage/storage.js';
import { DerivationPool } from './tokens/derivations.js';
import { FAST_PBKDF2_ITERATIONS, PBKDF2_ITERATIONS } from './tokens/hashing.js';
import { TokenService } from './tokens/service.js';
import { SharedVerifications } from './tokens/shared-verifications.js';
import { TokenVerifier } from './tokens/verifier.js';
import { AccountStates } from './users/account-states.js';
import { BackgroundWork } from './users/background-work.js';
import { UserCreation } from './users/creation.js';
import { AccountDeletion } from './users/deletion.js';
import { EmailChanges } from './users/email-changes.js';
import { EmailTokens } from './users/email-tokens.js';
import { AccountLinks } from './users/links.js';
import { UserLookup } from './users/lookup.js';
import { PasswordChanges } from './users/password-changes.js';
import { PasswordResets } from './users/password-resets.js';
import { Registrations } from './users/registrations.js';
import { ResetTokens } from './users/reset-tokens.js';
import { RoleService } from './users/roles.js';
import { UserService } from './users/service.js';
import { UserCache } from './users/user-cache.js';

export class AuthParts {
  readonly pluggable: Pluggable;
  /** The transport the configuration made, which `close()` closes (a replacement is the application's). */
  readonly configuredMail: MailTransport;
  readonly storage: Storage;
  readonly events: EventBus;
  /** `auth.audit`: the record of security-relevant actions, chained against tampering. */
  readonly audit: AuditLog;
  readonly hasher: PasswordHasher;
  readonly derivations = new DerivationPool();
  readonly lookup: UserLookup;
  readonly sessions: SessionStore;
  readonly cookie: SessionCookie;
  readonly verifier: TokenVerifier;
  readonly tokens: TokenService;
  readonly resetTokens: ResetTokens;
  readonly emailTokens: EmailTokens;
  readonly passwords: PasswordChanges;
  readonly users: UserService;
  readonly roles: RoleService;
  /** `auth.orgs`: organizations, their members and invitations. */
  readonly orgs: OrgService;
  /** Whether an organization role of this name is defined, for `auth.orgs` to refuse unknown ones (422 `unknown_role`). */
  knownOrgRole: (name: string) => boolean = (name) => this.orgRoles.has(name);
  /** Work done after an answer (reset requests, registrations with confirmation); `close()` waits for it. */
  readonly background: BackgroundWork;
  readonly resets: PasswordResets;
  readonly registrations: Registrations;
  readonly emailChanges: EmailChanges;
  readonly redis: SharedRedis | undefined;
  /** Absent when SERVICE_AUTH_RATE_LIMIT_ENABLED is false. */
  readonly limiters: Limiters | undefined;
  readonly credentials: CredentialResolver;
  /** Acting as another user: `start` and `stop` for the API and the console (docs/impersonation.md). */
  readonly impersonation: Impersonation;
  /** TOTP factors and recovery codes (src/mfa/). */
  readonly secondFactors: SecondFactors;
  readonly passkeys: Passkeys;
  readonly signIn: SignIn;
  /** Identity providers, the identities linked to users, and the sign-in through them (src/sso/). */
  readonly sso: SsoParts;
  /** The names of the application's user attributes, which every kind of rule may name (`${user.team}`). */
  readonly attributeNames = new AttributeNames();
  readonly roleRules = new RoleRules(undefined, this.attributeNames);
  /** Organization roles (`auth.defineOrgRole`), bound to their organization by the tenant field. */
  readonly orgRoles: OrgRoleRules;
  /** Scopes (`auth.defineScope`): what a token made with them may do at most. */
  readonly scopes = new ScopeRules(this.attributeNames);
  /** `auth.defineUserAttributes`: the values of the user attributes, read with the application's resolver and held. */
  readonly userAttributes: UserAttributes;
  readonly policies: PolicyRegistry;
  readonly abilities: AbilityFactory;
  readonly guards: Guards;
  /** Requests and questions in an organization (`orgRequired`, `{ org }`). */
  readonly orgAccess: OrgAccess;
  /** Who asks a question of the authorization API, resolved one way for every question. */
  readonly asking: Asking;
  /** Storage connected and migrated, and the password hasher warmed up. */
  readonly ready: Promise<void>;
  private closing: Promise<void> | undefined;

  constructor(readonly config: AuthConfig) {
    const publicOrigin = new URL(config.publicUrl).origin;
    this.hasher = new PasswordHasher(config.insecureFastHashing ? FAST_ARGON2_OPTIONS : ARGON2_OPTIONS);
    const pluggable = new Pluggable((log) => createMailTransport(config, log));
    this.pluggable = pluggable;
    this.configuredMail = pluggable.mail;
    this.storage = new Storage(config.databaseUrl, { migrate: config.autoMigrate, log: pluggable });
    this.events = new EventBus(pluggable);
    const audit = (this.audit = new AuditLog(this.storage, config.audit, pluggable));

    this.lookup = new UserLookup(this.storage);
    const cache = new UserCache(this.lookup, this.storage.changes);
    this.sessions = new SessionStore(this.storage, config.sessions, this.audit);
    this.cookie = new SessionCookie(config.sessions);
    // Redis carries the rate limits and, with a secret to key them, which tokens verified.
    const sharesRedis = config.redisUrl !== undefined && (config.rateLimit.enabled || config.secret !== undefined);
    this.redis = sharesRedis
      ? new SharedRedis(config.redisUrl!, config.redisPrefix, pluggable, {
          rateLimits: config.rateLimit.enabled,
          verifiedTokens: config.secret !== undefined,
        })
      : undefined;
    const shared = this.redis && config.secret ? new SharedVerifications(this.redis.client, config.secret) : undefined;
    this.verifier = new TokenVerifier(this.storage, this.derivations, shared);
    const tokenIterations = config.insecureFastHashing ? FAST_PBKDF2_ITERATIONS : PBKDF2_ITERATIONS;
    this.tokens = new TokenService(
      { ...config.tokens, iterations: tokenIterations },
      this.storage,
      this.lookup,
      this.derivations,
      this.verifier,
      this.audit,
      () => this.orgs,
      this.scopes,
    );
    this.resetTokens = new ResetTokens(this.storage, config.resetTokenTtlSeconds);
    this.emailTokens = new EmailTokens(this.storage, config.emailConfirmation.tokenTtlSeconds);
    const loginTickets = new LoginTickets(this.storage);
    this.passwords = new PasswordChanges(this.hasher, config.passwords, {
      sessions: this.sessions,
      tokens: this.tokens,
      resetTokens: this.resetTokens,
      loginTickets,
    });
    const revokeTokens = config.tokens.revokeOnPasswordReset;
    const { storage, lookup, sessions, tokens, resetTokens, emailTokens, passwords, events } = this;
    const creation = new UserCreation(storage, passwords, audit);
    this.users = new UserService({
      storage,
      audit,
      hasher: this.hasher,
      lookup,
      passwords,
      creation,
      cache,
      states: new AccountStates({ storage, audit, lookup, cache, sessions, events }),
      deletion: new AccountDeletion({
        storage,
        audit,
        lookup,
        cache,
        sessions,
        tokens,
        resetTokens,
        emailTokens,
        events,
        leaveOrgs: (tx, user) => this.orgs.leaveAll(tx, user),
      }),
      events,
      revokeTokensOnReset: revokeTokens,
    });
    this.roles = new RoleService(storage, this.users, this.roleRules);
    this.background = new BackgroundWork(pluggable);
    const links = new AccountLinks(config.publicUrl, config.urlPrefix);
    const mailing = { links, mail: pluggable, log: pluggable };
    const resetSettings = { ttlSeconds: config.resetTokenTtlSeconds, revokeTokens };
    this.resets = new PasswordResets({
      ...mailing,
      settings: resetSettings,
      background: this.background,
      storage,
      audit,
      users: this.users,
      lookup,
      tokens: resetTokens,
      passwords,
      events,
    });
    const confirmTtl = config.emailConfirmation.tokenTtlSeconds;
    this.registrations = new Registrations({
      ...mailing,
      storage,
      audit,
      creation,
      passwords,
      lookup,
      cache,
      emailTokens,
      events,
      ttlSeconds: confirmTtl,
      background: this.background,
    });
    this.emailChanges = new EmailChanges({
      ...mailing,
      storage,
      audit,
      creation,
      lookup,
      cache,
      emailTokens,
      resetTokens,
      events,
      ttlSeconds: confirmTtl,
    });
    const knownOrgRole = (name: string) => this.knownOrgRole(name);
    this.orgs = new OrgService({
      ...mailing,
      storage,
      audit,
      events,
      lookup,
      settings: config.orgs,
      knownOrgRole,
      evictTokensOf: (userId) => this.verifier.evictUser(userId),
    });

    this.limiters = createLimiters(config.rateLimit, this.redis);
    this.credentials = new CredentialResolver({
      cookie: this.cookie,
      sessions: this.sessions,
      users: this.users,
      verifier: this.verifier,
      tokenFailures: this.limiters?.tokenFailures,
      publicOrigin,
      impersonation: { credentials: (req, session) => this.impersonation.credentials(req, session) },
      whenReady: () => this.whenReady(),
      forgotten: forgetCredentials,
    });
    const box = new SecretBox(config.secret);
    const endSessions = (tx: Parameters<SessionStore['endAllOf']>[0], userId: number) =>
      this.sessions.endAllOf(tx, userId);
    this.secondFactors = new SecondFactors({
      storage,
      audit,
      box,
      issuer: new URL(config.publicUrl).host,
      forget: (ids) => this.users.forget(ids),
      endSessions,
    });
    this.passkeys = new Passkeys({ storage, audit, publicUrl: config.publicUrl });
    const signInParts = {
      storage,
      secondFactors: this.secondFactors,
      passkeys: this.passkeys,
      tickets: loginTickets,
      users: this.users,
      audit,
      sessions,
    };
    this.signIn = new SignIn({
      ...signInParts,
      cookie: this.cookie,
      credentials: this.credentials,
      limits: this.limiters,
      publicOrigin,
      requireConfirmedEmail: config.emailConfirmation.enabled,
    });
    this.sso = createSso(config, {
      storage,
      audit,
      signIn: this.signIn,
      tickets: loginTickets,
      users: this.users,
      creation,
      passkeys: this.passkeys,
      pluggable,
    });
    this.policies = new PolicyRegistry(pluggable);
    const tenant = new Tenant(config.tenantField);
    this.orgRoles = new OrgRoleRules(tenant, this.attributeNames);
    this.abilities = new AbilityFactory(this.roleRules, this.policies, this.orgRoles, this.scopes);
    // `auth.invalidateUser`: a row of the change feed naming the user, as a change to their credentials writes.
    const noteChange = async (userId: number) =>
      storage.transaction(await storage.em(), (tx) => storage.changes.note(tx.em, [userId]));
    const attributes = (this.userAttributes = new UserAttributes({
      names: this.attributeNames,
      feed: storage.changes,
      log: pluggable,
      noteChange,
    }));
    this.orgAccess = new OrgAccess(this.abilities, () => this.orgs, attributes);
    this.asking = new Asking({ abilities: this.abilities, orgAccess: this.orgAccess, tenant });
    const impersonations = new ImpersonationSessions(storage, audit, sessions);
    const ttlSeconds = config.sessions.impersonationTtlSeconds;
    this.impersonation = new Impersonation({
      ttlSeconds,
      sessions,
      impersonations,
      cookie: this.cookie,
      credentials: this.credentials,
      users: this.users,
      abilities: this.abilities,
    });
    this.guards = new Guards({
      credentials: this.credentials,
      abilities: this.abilities,
      policies: this.policies,
      orgs: this.orgAccess,
      tenant,
      attributes,
      publicOrigin,
    });
    this.ready = this.start();
    // `ready` may never be awaited (a server that only serves requests): report a failure here
    // rather than as an unhandled rejection.
    this.ready.catch((error: unknown) =>
      pluggable.logger.error(error instanceof Error ? error.message : String(error)),
    );
  }

  /** Waits for `ready` on behalf of a request; a failed start becomes a 503. */
  async whenReady(): Promise<void> {
    try {
      await this.ready;
    } catch {
      throw new AuthError('unavailable', 'The authentication service could not start; see the server log');
    }
  }

  /** A user's ability in an organization as it stands (an invitation's inviter's), or null for a user who is no more. */
  async abilityIn(userId: number, orgId: number): Promise<AppAbility | null> {
    const user = await this.lookup.find(userId);
    return user ? (await this.orgAccess.abilityIn(user, orgId)).ability : null;
  }

  /**
   * Finishes what is under way (work after answers, `last_used_at` and `last_seen_at` writes, mail), then closes the
   * database and Redis. Every step runs even if an earlier one fails (a flush into an unreachable
   * database, say), so that no connection is left open; the first failure is reported after.
   */
  close(): Promise<void> {
    this.closing ??= (async () => {
      const steps = await Promise.allSettled([this.background.flush(), this.verifier.close(), this.sessions.close()]);
      // After the work after answers, which may record; before the database closes.
      steps.push(...(await Promise.allSettled([this.audit.close()])));
      steps.push(...(await Promise.allSettled([Promise.resolve(this.configuredMail.close?.()), this.redis?.close()])));
      steps.push(...(await Promise.allSettled([this.storage.close()])));
      const failed = steps.find((step) => step.status === 'rejected');
      if (failed) throw failed.reason;
    })();
    return this.closing;
  }

  private async start(): Promise<void> {
    // At once: the dummy hash runs on libuv's thread pool while this thread opens storage.
    await Promise.all([this.storage.ready, this.hasher.warmUp()]);
  }
}
