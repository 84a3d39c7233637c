/**
 * `new ServiceAuth(app)`: reads the configuration once, builds the parts, mounts the auth router
 * at the prefix, and opens storage in the background (`ready`).
 */
import type { Application } from 'express';
import { readConfig, sourceFrom, type AuthConfig } from './config.js';
import { AuthError } from './errors.js';
import { createAuthRouter } from './http/auth-routes.js';
import { consoleLogger, type Logger } from './logger.js';
import { PasswordHasher } from './passwords/hashing.js';
import { Storage } from './storage/storage.js';
import { RoleService } from './users/roles.js';
import { UserService } from './users/service.js';

const instances = new WeakMap<object, ServiceAuth>();

export class ServiceAuth {
  /** The ServiceAuth mounted on an application, if any (the CLI's `--app` uses this). */
  static of(app: object): ServiceAuth | undefined {
    return instances.get(app);
  }

  readonly config: AuthConfig;
  /** Storage connected and migrated. Requests that arrive earlier wait for it. */
  readonly ready: Promise<void>;
  readonly users: UserService;
  readonly roles: RoleService;
  readonly passwordHasher = new PasswordHasher();
  /** Where the package logs; replace it with the application's logger. */
  logger: Logger = consoleLogger;

  private readonly storage: Storage;
  private closing: Promise<void> | undefined;

  constructor(app: Application) {
    this.config = readConfig(sourceFrom(app), app.get('env'));
    this.storage = new Storage(this.config.databaseUrl, { migrate: this.config.autoMigrate });
    this.users = new UserService(this.storage, this.passwordHasher, this.config.passwords);
    this.roles = new RoleService(this.storage);

    app.use(this.config.urlPrefix, createAuthRouter(this, this.log));
    instances.set(app, this);

    this.ready = this.start();
    // `ready` may never be awaited (a server that only serves requests): report a failure here
    // rather than as an unhandled rejection.
    this.ready.catch((error: unknown) => this.logger.error(error instanceof Error ? error.message : String(error)));
  }

  /** Flushes pending writes and closes the database. Safe to call more than once. */
  close(): Promise<void> {
    this.closing ??= this.storage.close();
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

  private async start(): Promise<void> {
    await this.storage.ready;
    await this.passwordHasher.warmUp();
  }
}
