/**
 * The parts of a ServiceAuth, built from one configuration, and how they are connected. A
 * ServiceAuth is these parts plus an Express application to mount the router on; the CLI uses
 * the parts alone, with no application. The parts are made here in four steps, each in its own
 * file under src/wiring/ (credential stores, accounts, authentication, authorization); what they
 * share, how they start and how they close is here.
 */
import { AuditLog } from './audit/audit-log.js';
import type { CredentialResolver } from './authentication/credentials.js';
import type { SignIn } from './authentication/sign-in.js';
import type { AbilityFactory } from './authorization/abilities.js';
import type { AppAbility } from './authorization/ability-types.js';
import type { Asking } from './authorization/asking.js';
import type { Guards } from './authorization/guards.js';
import type { Impersonation } from './impersonation/impersonation.js';
import type { Passkeys } from './mfa/passkeys.js';
import type { SecondFactors } from './mfa/second-factor.js';
import type { PolicyRegistry } from './authorization/policies.js';
import type { OrgAccess } from './authorization/org-access.js';
import { RoleRules } from './authorization/role-rules.js';
import type { OrgRoleRules } from './authorization/org-role-rules.js';
import { ScopeRules } from './authorization/scope-rules.js';
import { AttributeNames } from './authorization/attribute-names.js';
import type { UserAttributes } from './authorization/user-attributes.js';
import type { AuthConfig } from './config/config.js';
import { AuthError } from './errors.js';
import { EventBus } from './events.js';
import { createMailTransport } from './mail/index.js';
import type { OrgService } from './orgs/service.js';
import { ARGON2_OPTIONS, FAST_ARGON2_OPTIONS, PasswordHasher } from './passwords/hashing.js';
import { Pluggable } from './pluggable.js';
import type { MailTransport } from './mail/transport.js';
import type { Limiters } from './limiters.js';
import type { SharedRedis } from './rate-limit/shared-redis.js';
import type { SessionCookie } from './sessions/cookie.js';
import type { SessionStore } from './sessions/store.js';
import type { SsoParts } from './sso/parts.js';
import { Storage } from './storage/storage.js';
import { DerivationPool } from './tokens/derivations.js';
import type { TokenService } from './tokens/service.js';
import type { TokenVerifier } from './tokens/verifier.js';
import type { BackgroundWork } from './users/background-work.js';
import type { EmailChanges } from './users/email-changes.js';
import type { EmailTokens } from './users/email-tokens.js';
import type { UserLookup } from './users/lookup.js';
import type { PasswordChanges } from './users/password-changes.js';
import type { PasswordResets } from './users/password-resets.js';
import type { Registrations } from './users/registrations.js';
import type { ResetTokens } from './users/reset-tokens.js';
import type { RoleService } from './users/roles.js';
import type { UserService } from './users/service.js';
import { wireAccounts } from './wiring/accounts.js';
import { wireAuthentication } from './wiring/authentication.js';
import { wireAuthorization } from './wiring/authorization.js';
import { wireCredentialStores } from './wiring/credential-stores.js';

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
    this.audit = new AuditLog(this.storage, config.audit, pluggable);
    // In four steps (src/wiring/), each handed what the earlier ones made; what a part needs of a
    // later step it reads when asked, through `this`.
    const stores = wireCredentialStores(this);
    this.lookup = stores.lookup;
    this.sessions = stores.sessions;
    this.cookie = stores.cookie;
    this.redis = stores.redis;
    this.verifier = stores.verifier;
    this.tokens = stores.tokens;
    this.resetTokens = stores.resetTokens;
    this.emailTokens = stores.emailTokens;
    this.passwords = stores.passwords;
    const accounts = wireAccounts(this, stores.cache);
    this.users = accounts.users;
    this.roles = accounts.roles;
    this.background = accounts.background;
    this.resets = accounts.resets;
    this.registrations = accounts.registrations;
    this.emailChanges = accounts.emailChanges;
    this.orgs = accounts.orgs;
    const { loginTickets } = stores;
    const authentication = wireAuthentication(this, { publicOrigin, loginTickets, creation: accounts.creation });
    this.limiters = authentication.limiters;
    this.credentials = authentication.credentials;
    this.secondFactors = authentication.secondFactors;
    this.passkeys = authentication.passkeys;
    this.signIn = authentication.signIn;
    this.sso = authentication.sso;
    const authorization = wireAuthorization(this, publicOrigin);
    this.policies = authorization.policies;
    this.orgRoles = authorization.orgRoles;
    this.abilities = authorization.abilities;
    this.userAttributes = authorization.userAttributes;
    this.orgAccess = authorization.orgAccess;
    this.asking = authorization.asking;
    this.impersonation = authorization.impersonation;
    this.guards = authorization.guards;
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
