/**
 * `new ServiceAuth(app)`: reads the configuration once, builds the parts (wiring.ts), mounts the
 * auth router at the prefix with the error middleware after it, and opens storage in the
 * background (`ready`). Everything else here is the public API, handing over to the parts.
 *
 * It is made of parts, not a chain of classes: what an application defines
 * (policy-definitions.ts), its user attributes (user-attribute-api.ts), the guards and questions
 * (authorization-api.ts) and `req.em` (enforcement-api.ts) are each an object of their own, whose
 * members ServiceAuth hands over to (hand-over.ts) and declares by extending their classes as an
 * interface, so that each member is written and documented once. Where an instance and its parts
 * are found again (`ServiceAuth.of(app)`, `partsOf`) is instance-registry.ts.
 */
import type { Application, ErrorRequestHandler, Request, RequestHandler } from 'express';
import type { AuditApi, AuditHandler } from './audit/audit-log.js';
import { AuthorizationApi } from './authorization-api.js';
import { EnforcementApi } from './enforcement-api.js';
import type { AuthConfig } from './config/config.js';
import { readConfig } from './config/read-config.js';
import { sourceFrom } from './config/source.js';
import { unknownKeys } from './config/unknown-keys.js';
import { AuthError } from './errors.js';
import type { EventHandler, EventName, OrgEventHandler, OrgEventName } from './events.js';
import { createErrorHandler } from './http/errors.js';
import type { PageTexts } from './http/pages/texts.js';
import type { Explainer } from './http/pages/admin/routes.js';
import { createAuthRouter, unknownPath } from './http/router.js';
import type { Logger } from './logger.js';
import type { MailTransport } from './mail/transport.js';
import type { OrgService } from './orgs/service.js';
import type { UserRef } from './storage/user-ref.js';
import { handOver } from './hand-over.js';
import { keepParts, markMounted, mountedOn } from './instance-registry.js';
import { PolicyDefinitions } from './policy-definitions.js';
import { DerivationsBusyError } from './tokens/derivations.js';
import type { TokenService } from './tokens/service.js';
import type { AuthUser } from './users/auth-user.js';
import type { RoleService } from './users/roles.js';
import type { IdentityProviderOptions } from './sso/providers.js';
import type { UserService } from './users/service.js';
import { UserAttributeApi } from './user-attribute-api.js';
import { AuthParts } from './wiring.js';

// The members of the parts, declared here (implemented and documented in each part's class).
export interface ServiceAuth extends PolicyDefinitions, UserAttributeApi, AuthorizationApi, EnforcementApi {}

export class ServiceAuth {
  static {
    handOver(ServiceAuth, (auth) => auth.#definitions, PolicyDefinitions, ['define_policy']);
    handOver(ServiceAuth, (auth) => auth.#attributes, UserAttributeApi);
    handOver(ServiceAuth, (auth) => auth.#authorization, AuthorizationApi, ['policies', 'roles_required']);
    handOver(ServiceAuth, (auth) => auth.#enforcement, EnforcementApi);
  }

  /** The ServiceAuth mounted on an application, if any (the CLI's `--app` uses this). */
  static of(app: object): ServiceAuth | undefined {
    return mountedOn(app);
  }

  readonly #parts: AuthParts;
  readonly #definitions: PolicyDefinitions;
  readonly #attributes: UserAttributeApi;
  readonly #authorization: AuthorizationApi;
  readonly #enforcement: EnforcementApi;
  readonly config: AuthConfig;
  /** Storage connected and migrated. Requests that arrive earlier wait for it. */
  readonly ready: Promise<void>;
  readonly users: UserService;
  readonly roles: RoleService;
  /** Organizations, their members and their roles there, invitations (docs/organizations.md). */
  readonly orgs: OrgService;
  /** Personal access tokens: create, list, revoke, import legacy hashes. */
  readonly tokens: TokenService;
  /** The audit log: query it for admin screens, verify its chain (docs/audit.md). */
  readonly audit: AuditApi;
  /**
   * The one error middleware: mount it after your own routes (`app.use(auth.errorHandler)`), so
   * that the guards' refusals and your own errors are answered as problem details, or as a page
   * for a browser. The auth router has it already.
   */
  readonly errorHandler: ErrorRequestHandler;
  /**
   * A 404 for any request no route took, answered by `errorHandler` (problem details, or a page
   * for a browser): mount it after your own routes and before `errorHandler`. The auth router's
   * own unknown paths get the same.
   */
  readonly notFound: RequestHandler = unknownPath;

  constructor(app: Application) {
    const assumed: string[] = [];
    const config = readConfig(sourceFrom(app), app.get('env'), (warning) => assumed.push(warning));
    const parts = new AuthParts(config);
    this.#parts = parts;
    keepParts(this, parts);
    this.#definitions = new PolicyDefinitions(parts);
    this.#attributes = new UserAttributeApi(parts);
    const authorization = (this.#authorization = new AuthorizationApi(parts));
    this.#enforcement = new EnforcementApi(parts);
    this.config = config;
    this.ready = parts.ready;
    this.users = parts.users;
    this.roles = parts.roles;
    this.orgs = parts.orgs;
    this.tokens = parts.tokens;
    this.audit = parts.audit;
    this.errorHandler = createErrorHandler({ config: this.config, pluggable: parts.pluggable, audit: parts.audit });
    // The error middleware right after the router also answers what the application's own body
    // parsers refused on a path under the prefix.
    const explain: Explainer = (user, action, subjectType, context, org) =>
      org === undefined
        ? authorization.explain(user, action, subjectType, context)
        : authorization.explain(user, action, subjectType, context, { org });
    app.use(this.config.urlPrefix, createAuthRouter(parts, { explain }), unknownPath, this.errorHandler);
    markMounted(app, this);
    // Found now, among what construction read; logged once it is done, so that a logger assigned
    // right after it receives the warnings.
    const unknown = unknownKeys(app.settings as Record<string, unknown>, process.env).map(
      ({ key, source, nearest }) =>
        `unknown configuration key ${key} in the ` +
        `${source === 'settings' ? "application's settings" : 'environment'}; did you mean ` +
        `${nearest}?`,
    );
    queueMicrotask(() => {
      for (const warning of [...unknown, ...assumed]) parts.pluggable.logger.warn(warning);
    });
  }

  // ---- what an application may replace ----

  /** Where the package logs: `console` with a prefix by default; pino and winston loggers fit. */
  get logger(): Logger {
    return this.#parts.pluggable.logger;
  }

  set logger(logger: Logger) {
    this.#parts.pluggable.logger = logger;
  }

  /** How mail leaves: SMTP, the outbox directory or the console, per configuration. */
  get mail(): MailTransport {
    return this.#parts.pluggable.mail;
  }

  /** Replacing it closes the configured transport (an SMTP pool) if it is the one replaced. */
  set mail(transport: MailTransport) {
    const { pluggable, configuredMail } = this.#parts;
    if (pluggable.mail === configuredMail && transport !== configuredMail)
      void Promise.resolve(configuredMail.close?.()).catch(() => undefined);
    pluggable.mail = transport;
  }

  /** Every word of the built-in pages; assign a copy with changes to reword or translate them. */
  get texts(): PageTexts {
    return this.#parts.pluggable.texts;
  }

  set texts(texts: PageTexts) {
    this.#parts.pluggable.texts = texts;
  }

  // ---- events ----

  /**
   * Subscribes to a lifecycle event: `auth.on('user_login')(handler)` (returns the handler, the
   * decorator form) or `auth.on('user_login', handler)` (returns an unsubscribe function).
   * An unknown name throws a TypeError listing the valid ones.
   */
  on(name: EventName): <H extends EventHandler>(handler: H) => H;
  on(name: EventName, handler: EventHandler): () => void;
  /** An organization event: handed the acting user (or null) and `{ org, member?, roles? }` (docs/organizations.md). */
  on(name: OrgEventName): <H extends OrgEventHandler>(handler: H) => H;
  on(name: OrgEventName, handler: OrgEventHandler): () => void;
  /** Each audit record, once it has committed (to ship to a log pipeline); not awaited. */
  on(name: 'audit'): <H extends AuditHandler>(handler: H) => H;
  on(name: 'audit', handler: AuditHandler): () => void;
  on(
    name: EventName | OrgEventName | 'audit',
    handler?: EventHandler | OrgEventHandler | AuditHandler,
  ): (<H extends EventHandler & OrgEventHandler & AuditHandler>(handler: H) => H) | (() => void) {
    if (name === 'audit') {
      const { audit } = this.#parts;
      if (handler) return audit.onRecord(handler as AuditHandler);
      return <H extends AuditHandler>(decorated: H): H => {
        audit.onRecord(decorated);
        return decorated;
      };
    }
    const { events } = this.#parts;
    events.listFor(name);
    if (handler) return events.subscribe(name, handler as EventHandler | OrgEventHandler);
    return <H extends EventHandler | OrgEventHandler>(decorated: H): H => {
      events.subscribe(name, decorated);
      return decorated;
    };
  }

  /**
   * The user of any request (session cookie or bearer token), or null, for routes where login is
   * optional. Credentials a guard would refuse (an invalid token, a cookie on an unsafe request
   * from another site, a client over its failure limit) count as nobody; storage that could not
   * start is thrown as a 503 AuthError.
   */
  async currentUser(req: Request): Promise<AuthUser | null> {
    const parts = this.#parts;
    await parts.whenReady();
    try {
      return (await parts.credentials.acceptable(req))?.user ?? null;
    } catch (error) {
      if (error instanceof AuthError && (error.code !== 'unavailable' || error instanceof DerivationsBusyError))
        return null;
      throw error;
    }
  }

  /**
   * Sets a user's password as an operator would (the CLI's `reset-password`): the password rules
   * apply, every session ends (and every token, per SERVICE_AUTH_REVOKE_TOKENS_ON_PASSWORD_RESET),
   * pending reset links stop working, and `password_reset_completed` fires.
   */
  resetPassword(user: UserRef, password: string): Promise<AuthUser> {
    return this.#parts.resets.reset(user, password);
  }

  /**
   * Adds a provider to sign in through (docs/sso.md): OpenID Connect by its `issuer`, or plain
   * OAuth 2 by its `endpoints` and a `profile` mapping. A bad option throws a ConfigError naming
   * it; nothing is fetched from the provider until someone signs in through it.
   */
  addIdentityProvider(options: IdentityProviderOptions): void {
    this.#parts.sso.providers.add(options);
  }

  /** Finishes pending work (reset requests, mail) and closes the database and Redis. Safe to call twice. */
  close(): Promise<void> {
    return this.#parts.close();
  }
}
