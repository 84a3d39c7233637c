/**
 * What every `auth` command shares: where the data is (`--database`, `--app`), opening the
 * service-auth parts and closing them, keeping the package's log lines off stdout, and turning
 * failures into a message on stderr and a non-zero exit status. A command implements `run()`,
 * calls `auth()` for started parts, and prints with `print()`.
 *
 * This module and the command classes load nothing heavy: clipanion needs the classes for `--help`
 * and `--version`, which should answer at once. The parts (MikroORM, the services), an
 * application module and the failure report are imported when a command runs.
 */
import type { Writable } from 'node:stream';
import { Command, Option, UsageError } from 'clipanion';
import { withAuditContext } from '../../src/audit/context.js';
import type { AuthConfig } from '../../src/config/config.js';
import { readConfig } from '../../src/config/read-config.js';
import { sourceFrom } from '../../src/config/source.js';
import { ConfigError } from '../../src/config/error.js';
import type { AuthUser } from '../../src/users/auth-user.js';
import { normalizeEmail } from '../../src/users/emails.js';
import type { Logger } from '../../src/logger.js';
import type { Storage } from '../../src/storage/storage.js';
import type { AuthParts } from '../../src/wiring.js';
import { cliLogger } from './cli-logger.js';
import { CliFailure, EXIT_USAGE } from './failures.js';
import { loadDefaultPolicies } from './policy-rules.js';

const DATABASE_KEY = 'SERVICE_AUTH_DATABASE_URL';

export abstract class ServiceAuthCommand extends Command {
  database = Option.String('--database', {
    description: `The database URL (sqlite:<path> or postgresql://…); default ${DATABASE_KEY}, else sqlite:service-auth.sqlite`,
  });

  app = Option.String('--app', {
    description:
      'An application module (its default export or export `app`) whose ServiceAuth, configuration and event handlers apply',
  });

  /** The parts this command opened or loaded; closed when the command ends. */
  private opened: AuthParts | undefined;
  /** The database alone, when the command opened no parts (`storage()`); closed when it ends. */
  private openedStorage: Storage | undefined;
  /** With `--app`: puts back the stdout and `listen` the application was kept from (quiet-application.ts). */
  private unquiet: (() => void) | undefined;

  /**
   * The command's work. Expected failures are thrown (CliFailure, AuthError) and reported by
   * `execute`; a command whose success has several outcomes returns its exit status.
   */
  protected abstract run(): Promise<number | void>;

  async execute(): Promise<number> {
    // Whatever the command changes is recorded with the actor `cli` (src/audit/context.ts).
    const status = await withAuditContext({ actor: 'cli' }, () => this.attempt(() => this.run()));
    const closed = await this.attempt(async () => {
      await this.opened?.close();
      await this.openedStorage?.close();
    });
    this.unquiet?.();
    return status || closed;
  }

  /** Flag rules (`static schema`) are checked before `execute`: their errors belong on stderr too. */
  override async validateAndExecute(): Promise<number> {
    try {
      return await super.validateAndExecute();
    } catch (error) {
      if (!(error instanceof UsageError)) throw error;
      // clipanion words a schema failure "Invalid option schema: <rule>"; the rule alone says it.
      const rule = new UsageError(error.message.replace(/^Invalid option schema: /, ''));
      this.context.stderr.write(this.cli.error(rule, { command: this }));
      return EXIT_USAGE;
    }
  }

  /** The parts to work with, their storage connected and (unless configured otherwise) migrated. */
  protected async auth(): Promise<AuthParts> {
    const parts = await this.openParts();
    await parts.ready;
    return parts;
  }

  /**
   * The database alone, connected and migrated as for `auth()`, for a command that only reads
   * rows: without the services it loads and builds none of them (nor Redis, the rate limiter or
   * the password hasher's warm-up), which makes it start about twice as fast. With `--app`, the
   * application's own storage.
   */
  protected async storage(): Promise<Storage> {
    if (this.app) return (await this.auth()).storage;
    this.openedStorage ??= await ownStorage(this.config(), this.context.stderr);
    await this.openedStorage.ready;
    return this.openedStorage;
  }

  /**
   * The parts, not necessarily started: the application's (`--app`), or our own, configured by
   * `--database` and the environment, with no application to hold them.
   */
  protected async openParts(): Promise<AuthParts> {
    if (this.opened) return this.opened;
    const parts = this.app ? await this.applicationParts(this.app) : await ownParts(this.config());
    parts.pluggable.logger = cliLogger(this.context.stderr, parts.ready);
    this.opened = parts;
    return parts;
  }

  /**
   * The database URL the command works on, without opening anything of our own. With `--app` the
   * application's ServiceAuth is already opening (and perhaps migrating) the database as the
   * module loads: this waits for it to finish, so that two migrators never race.
   */
  protected async databaseUrl(): Promise<string> {
    if (!this.app) return this.config().databaseUrl;
    const parts = await this.openParts();
    await parts.ready.catch(() => undefined);
    return parts.config.databaseUrl;
  }

  /** The user with this email, or a failure saying that there is none. */
  protected async existingUser(auth: AuthParts, email: string): Promise<AuthUser> {
    const user = await auth.users.findByEmail(email);
    if (!user) throw new CliFailure(`Unknown email: no user with email ${normalizeEmail(email)}`);
    return user;
  }

  /** One line of the command's output on stdout. */
  protected print(line: string): void {
    this.context.stdout.write(`${line}\n`);
  }

  /**
   * The configuration of our own parts: `--database`, then the environment. The CLI sends no
   * mail, so it needs no public URL, which production otherwise requires. An SQLite file whose
   * folder does not exist is refused there, as the server refuses it (src/config/sqlite-folder.ts).
   */
  protected config(): AuthConfig {
    const overrides = new Map<string, string>();
    if (this.database !== undefined) overrides.set(DATABASE_KEY, this.database);
    if (!process.env['SERVICE_AUTH_PUBLIC_URL']) overrides.set('SERVICE_AUTH_PUBLIC_URL', 'http://localhost');
    // Nor does it answer requests, so it counts none: without limiters it loads no rate limiter
    // and, unless SERVICE_AUTH_SECRET shares verified tokens, opens no Redis connection.
    overrides.set('SERVICE_AUTH_RATE_LIMIT_ENABLED', 'false');
    return readConfig(sourceFrom(overrides), process.env['NODE_ENV'] || 'development');
  }

  private async applicationParts(modulePath: string): Promise<AuthParts> {
    // The module builds its ServiceAuth while it loads, so `--database` can only reach it through
    // the environment; an application that sets the key with app.set() keeps its own database.
    if (this.database !== undefined) process.env[DATABASE_KEY] = this.database;
    // As for our own parts, no public URL is needed to send no mail; without one the application
    // would warn (or, in production, refuse to start) about links the command never makes.
    process.env['SERVICE_AUTH_PUBLIC_URL'] ||= 'http://localhost';
    const [{ serviceAuthOfModule }, { partsOf }, { quietApplication }] = await Promise.all([
      import('./application-module.js'),
      import('../../src/instance-registry.js'),
      import('./quiet-application.js'),
    ]);
    // Its console output on stderr and its servers closed, while it loads and while the command runs.
    const quiet = quietApplication(this.context.stdout, this.context.stderr);
    this.context = { ...this.context, stdout: quiet.stdout };
    this.unquiet = quiet.restore;
    return partsOf(await serviceAuthOfModule(modulePath, process.cwd()));
  }

  private async attempt(work: () => Promise<number | void>): Promise<number> {
    try {
      return (await work()) ?? 0;
    } catch (error) {
      const { reportFailure } = await import('./failure-report.js');
      const { message, exitCode } = reportFailure(this.inTermsOfOptions(error));
      this.context.stderr.write(`${message}\n`);
      return exitCode;
    }
  }

  /** A bad `--database` is reported as the option the operator typed, not as the configuration key. */
  private inTermsOfOptions(error: unknown): unknown {
    if (error instanceof ConfigError && error.key === DATABASE_KEY && this.database !== undefined && !this.app) {
      return new CliFailure(`Invalid --database ${JSON.stringify(error.value)}: expected ${error.expected}`);
    }
    return error;
  }
}

/** Our own parts, with no application to hold them. */
async function ownParts(config: AuthConfig): Promise<AuthParts> {
  const { AuthParts } = await import('../../src/wiring.js');
  const parts = new AuthParts(config);
  try {
    await loadDefaultPolicies(parts);
  } catch (error) {
    await parts.close().catch(() => undefined);
    throw error;
  }
  return parts;
}

/** Our own database alone, its log lines on stderr as the parts' are (`openParts`). */
async function ownStorage(config: AuthConfig, stderr: Writable): Promise<Storage> {
  const [{ Storage }, { consoleLogger }] = await Promise.all([
    import('../../src/storage/storage.js'),
    import('../../src/logger.js'),
  ]);
  // As with the parts' Pluggable: the console until the CLI's logger, which waits for `ready`, replaces it.
  const log: { logger: Logger } = { logger: consoleLogger };
  const storage = new Storage(config.databaseUrl, { migrate: config.autoMigrate, log });
  log.logger = cliLogger(stderr, storage.ready);
  return storage;
}
