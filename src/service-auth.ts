/**
 * `new ServiceAuth(app)`: reads the configuration once, builds the parts, mounts the auth router
 * at the prefix, and opens storage in the background (`ready`).
 */
import { fileURLToPath } from 'node:url';
import { subject as asSubject } from '@casl/ability';
import type { Application, Request, RequestHandler } from 'express';
import { AbilityFactory, POLICY_ACTION, type AppAbility } from './authorization/abilities.js';
import { CredentialResolver } from './authorization/credentials.js';
import { Guards, type RequireOptions } from './authorization/guards.js';
import { PolicyRegistry, type Policy } from './authorization/policies.js';
import { toPrincipal, type PrincipalLike } from './authorization/principal.js';
import { RoleRules, type RoleRule } from './authorization/role-rules.js';
import { readConfig, sourceFrom, type AuthConfig } from './config.js';
import { AuthError } from './errors.js';
import { EventBus, type EventHandler, type EventName } from './events.js';
import { abilityRoutes } from './http/ability-routes.js';
import { tokenRoutes } from './http/token-routes.js';
import { createAuthRouter, type AuthLimiters } from './http/auth-routes.js';
import { defaultPageTexts, type PageTexts } from './http/pages/texts.js';
import { consoleLogger, type Logger } from './logger.js';
import { createMailTransport } from './mail/index.js';
import type { MailTransport } from './mail/transport.js';
import { PasswordHasher } from './passwords/hashing.js';
import { createLimiter, type Limiter } from './rate-limit/limiter.js';
import { SharedRedis } from './rate-limit/shared-redis.js';
import { SessionCookie } from './sessions/cookie.js';
import { SessionStore } from './sessions/store.js';
import { DerivationPool, DerivationsBusyError } from './tokens/derivations.js';
import { TokenService } from './tokens/service.js';
import { TokenVerifier } from './tokens/verifier.js';
import { Storage } from './storage/storage.js';
import type { AuthUser } from './users/auth-user.js';
import { PasswordResets } from './users/password-resets.js';
import { RoleService } from './users/roles.js';
import { UserService, type UserRef } from './users/service.js';
import { UserCache } from './users/user-cache.js';

/**
 * Where an application keeps its ServiceAuth: a registered symbol, so that a second copy of the
 * package in the process (the CLI from dist/ loading an application built on src/, say) finds it.
 */
const INSTANCE = Symbol.for('service-auth.instance');

export class ServiceAuth {
  /** The ServiceAuth mounted on an application, if any (the CLI's `--app` uses this). */
  static of(app: object): ServiceAuth | undefined {
    return (app as { [INSTANCE]?: ServiceAuth })[INSTANCE];
  }

  readonly config: AuthConfig;
  /** Storage connected and migrated. Requests that arrive earlier wait for it. */
  readonly ready: Promise<void>;
  readonly users: UserService;
  readonly roles: RoleService;
  /** Personal access tokens: create, list, revoke, import legacy hashes. */
  readonly tokens: TokenService;
  readonly passwordHasher = new PasswordHasher();
  /** Where the package logs; replace it with the application's logger. */
  logger: Logger = consoleLogger;
  /** How mail leaves: SMTP, the outbox directory or the console, per configuration. */
  mail: MailTransport;
  /** Every word of the built-in pages; assign a copy with changes to reword or translate them. */
  texts: PageTexts = defaultPageTexts;

  private readonly storage: Storage;
  private readonly events: EventBus;
  private readonly policies: PolicyRegistry;
  private readonly roleRules = new RoleRules();
  private readonly abilities: AbilityFactory;
  private readonly guards: Guards;
  private readonly sessions: SessionStore;
  private readonly credentials: CredentialResolver;
  private readonly resets: PasswordResets;
  private readonly verifier: TokenVerifier;
  private readonly redis: SharedRedis | undefined;
  private closing: Promise<void> | undefined;

  constructor(app: Application) {
    this.config = readConfig(sourceFrom(app), app.get('env'));
    const log = this.log;
    this.storage = new Storage(this.config.databaseUrl, { migrate: this.config.autoMigrate, logger: log });
    this.events = new EventBus(log);
    this.mail = createMailTransport(this.config, log);
    this.users = new UserService(this.storage, this.passwordHasher, this.config.passwords);
    this.roles = new RoleService(this.storage);
    this.sessions = new SessionStore(this.storage, this.config.sessions.ttlSeconds);
    const cookie = new SessionCookie(this.config.sessions);
    // Redis carries only the rate limits: without them, no connection.
    this.redis = this.config.rateLimit.enabled && this.config.redisUrl ? new SharedRedis(this.config.redisUrl, log) : undefined;
    const limiters = this.createLimiters();
    const derivations = new DerivationPool();
    this.verifier = new TokenVerifier(this.storage, derivations);
    this.tokens = new TokenService(this.config.tokens, this.storage, this.users, derivations, this.verifier);
    this.credentials = new CredentialResolver({
      cookie,
      sessions: this.sessions,
      users: new UserCache(this.users),
      verifier: this.verifier,
      tokenFailures: limiters?.tokenFailures,
      whenReady: () => this.whenReady(),
    });
    this.resets = new PasswordResets({
      config: this.config,
      storage: this.storage,
      users: this.users,
      hasher: this.passwordHasher,
      mail: { send: (mail) => this.mail.send(mail) },
      events: this.events,
      logger: log,
      credentialsRevoked: (userId) => {
        this.sessions.evictUser(userId);
        this.verifier.evictUser(userId);
      },
    });
    this.policies = new PolicyRegistry(log);
    this.abilities = new AbilityFactory(this.roleRules, this.policies);
    this.guards = new Guards({
      credentials: this.credentials,
      abilities: this.abilities,
      policies: this.policies,
      publicOrigin: new URL(this.config.publicUrl).origin,
      loginPath: `${this.config.urlPrefix}/login`,
      logger: log,
    });

    const texts = (): PageTexts => this.texts;
    const tokens = tokenRoutes({
      config: this.config,
      tokens: this.tokens,
      loginRequired: this.loginRequired,
      currentUser: (req) => this.currentUser(req),
      texts,
    });
    app.use(
      this.config.urlPrefix,
      createAuthRouter({
        config: this.config,
        users: this.users,
        sessions: this.sessions,
        cookie,
        credentials: this.credentials,
        resets: this.resets,
        events: this.events,
        limiters,
        logger: log,
        texts,
        whenReady: () => this.whenReady(),
        requestContext: this.storage.requestContext,
        apiRouters: {
          '/api/abilities': abilityRoutes(this.loginRequired, this.abilities),
          '/api/tokens': tokens.api,
          '/tokens': tokens.page,
        },
      }),
    );
    Object.defineProperty(app, INSTANCE, { value: this, configurable: true });

    this.ready = this.start();
    // `ready` may never be awaited (a server that only serves requests): report a failure here
    // rather than as an unhandled rejection.
    this.ready.catch((error: unknown) => this.logger.error(error instanceof Error ? error.message : String(error)));
  }

  // ---- authorization ----

  /**
   * Defines (or replaces) a named policy: a synchronous `(user, context) => boolean`, where the
   * context is the route's URL parameters (canonical integers as numbers). Only `true` allows.
   */
  definePolicy(name: string, policy: Policy): void {
    this.policies.define(name, policy);
  }

  /** The specification's spelling of `definePolicy`. */
  readonly define_policy = (name: string, policy: Policy): void => this.definePolicy(name, policy);

  /** Defines (or replaces) what a role permits, as CASL raw rules with `${user.*}` placeholders. */
  defineRole(name: string, rules: readonly RoleRule[]): void {
    this.roleRules.define(name, rules);
  }

  /** Loads role rules from a JSON file (role name to rule list) or every .json file of a directory. */
  loadPolicies(path: string | URL): string[] {
    return this.roleRules.load(path instanceof URL ? fileURLToPath(path) : path);
  }

  /** Guard: a session or a token. */
  get loginRequired(): RequestHandler {
    return this.guards.loginRequired;
  }

  /** Guard: a valid API token (`Authorization: Bearer`); a session cookie alone does not pass. */
  get tokenRequired(): RequestHandler {
    return this.guards.tokenRequired;
  }

  /** The specification's spelling of `tokenRequired`. */
  get token_required(): RequestHandler {
    return this.guards.tokenRequired;
  }

  /** Guard: the token carries every scope (no scopes means all; sessions are not limited by scopes). */
  requireScopes(...scopes: string[]): RequestHandler {
    return this.guards.requireScopes(...scopes);
  }

  /** Guard: the user holds every one of the roles. */
  rolesRequired(...roles: string[]): RequestHandler {
    return this.guards.rolesRequired(...roles);
  }

  /** The specification's spelling of `rolesRequired`. */
  readonly roles_required = (...roles: string[]): RequestHandler => this.rolesRequired(...roles);

  /** Guard: the user holds at least one of the roles. */
  rolesAccepted(...roles: string[]): RequestHandler {
    return this.guards.rolesAccepted(...roles);
  }

  /** Guard: `{ policy }` returns true, or the ability allows `{ action, subject }` with the URL context. */
  require(options: RequireOptions): RequestHandler {
    return this.guards.require(options);
  }

  /** The CASL ability of any user (`req.user`, or `{ id, email, is_admin, roles }`). */
  abilityFor(user: PrincipalLike): AppAbility {
    return this.abilities.abilityFor(toPrincipal(user));
  }

  /** Whether the named policy allows the user in this context; fails closed like the guard. */
  can(user: PrincipalLike, policy: string, context: Record<string, unknown> = {}): boolean {
    const principal = toPrincipal(user);
    if (!this.policies.has(policy)) return this.policies.check(policy, principal, context);
    return this.abilities.abilityFor(principal).can(POLICY_ACTION, asSubject(policy, { ...context }));
  }

  // ---- events ----

  /**
   * Subscribes to a lifecycle event: `auth.on('user_login')(handler)` (returns the handler, the
   * decorator form) or `auth.on('user_login', handler)` (returns an unsubscribe function).
   * An unknown name throws a TypeError listing the valid ones.
   */
  on(name: EventName): <H extends EventHandler>(handler: H) => H;
  on(name: EventName, handler: EventHandler): () => void;
  on(name: EventName, handler?: EventHandler): (<H extends EventHandler>(handler: H) => H) | (() => void) {
    this.events.listFor(name);
    if (handler) return this.events.subscribe(name, handler);
    return <H extends EventHandler>(decorated: H): H => {
      this.events.subscribe(name, decorated);
      return decorated;
    };
  }

  /**
   * The user of any request (session cookie or bearer token), or null, for routes where login is
   * optional. Credentials that would be refused (an invalid token, a client over its failure
   * limit) count as nobody; storage that could not start is thrown as a 503 AuthError.
   */
  async currentUser(req: Request): Promise<AuthUser | null> {
    await this.whenReady();
    try {
      return (await this.credentials.resolve(req))?.user ?? null;
    } catch (error) {
      if (error instanceof AuthError && (error.code !== 'unavailable' || error instanceof DerivationsBusyError)) return null;
      throw error;
    }
  }

  /**
   * Sets a user's password as an operator would (the CLI's `reset-password`): the password rules
   * apply, every session ends (and every token, per SERVICE_AUTH_REVOKE_TOKENS_ON_PASSWORD_RESET),
   * pending reset links stop working, and `password_reset_completed` fires.
   */
  resetPassword(user: UserRef, password: string): Promise<AuthUser> {
    return this.resets.resetPassword(user, password);
  }

  /** Flushes pending writes (mail being sent) and closes the database and Redis. Safe to call twice. */
  close(): Promise<void> {
    this.closing ??= (async () => {
      // Every step runs even if an earlier one fails (a flush into an unreachable database, say),
      // so that no connection is left open; the first failure is reported after.
      const steps = await Promise.allSettled([this.resets.flush(), this.verifier.close()]);
      steps.push(...(await Promise.allSettled([Promise.resolve(this.mail.close?.()), Promise.resolve(this.redis?.close())])));
      steps.push(...(await Promise.allSettled([this.storage.close()])));
      const failed = steps.find((step) => step.status === 'rejected');
      if (failed) throw failed.reason;
    })();
    return this.closing;
  }

  /** Waits for `ready` on behalf of a request; a failed start becomes a 503. */
  async whenReady(): Promise<void> {
    try {
      await this.ready;
    } catch {
      throw new AuthError('unavailable', 'The authentication service could not start; see the server log');
    }
  }

  /** A logger that always writes to the current `auth.logger`, even if it is replaced later. */
  private readonly log: Logger = {
    info: (message, ...details) => this.logger.info(message, ...details),
    warn: (message, ...details) => this.logger.warn(message, ...details),
    error: (message, ...details) => this.logger.error(message, ...details),
  };

  private createLimiters(): (AuthLimiters & { tokenFailures: Limiter }) | undefined {
    const { rateLimit } = this.config;
    if (!rateLimit.enabled) return undefined;
    const limiter = (name: string, rate: typeof rateLimit.login) => createLimiter({ name, rate, redis: this.redis?.client, onRedisFailure: () => this.redis?.fellBack() });
    return {
      login: limiter('login', rateLimit.login),
      register: limiter('register', rateLimit.register),
      forgotPassword: limiter('forgot', rateLimit.forgotPassword),
      resetPassword: limiter('reset', rateLimit.resetPassword),
      loginFailures: limiter('login-failures', rateLimit.loginFailures),
      tokenFailures: limiter('token-failures', rateLimit.tokenFailures),
    };
  }

  private async start(): Promise<void> {
    await this.storage.ready;
    await this.passwordHasher.warmUp();
  }
}
