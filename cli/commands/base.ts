/**
 * What every `auth` command shares: where the data is (`--database`, `--app`), opening a
 * ServiceAuth and closing it, keeping the package's log lines off stdout, and turning failures
 * into a message on stderr and a non-zero exit status. A command implements `run()`, calls
 * `serviceAuth()` for a started instance, and prints with `print()`.
 */
import { Command, Option, UsageError } from 'clipanion';
import express, { type Express } from 'express';
import { ConfigError, readConfig, sourceFrom } from '../../src/config.js';
import { ServiceAuth } from '../../src/service-auth.js';
import type { AuthUser } from '../../src/users/auth-user.js';
import { normalizeEmail } from '../../src/users/emails.js';
import { serviceAuthOfModule } from '../application-module.js';
import { cliLogger } from '../cli-logger.js';
import { CliFailure, EXIT_USAGE, reportFailure } from '../failures.js';

const DATABASE_KEY = 'SERVICE_AUTH_DATABASE_URL';

export abstract class ServiceAuthCommand extends Command {
  database = Option.String('--database', {
    description: `The database URL (sqlite:<path> or postgresql://…); default ${DATABASE_KEY}, else sqlite:service-auth.sqlite`,
  });

  app = Option.String('--app', {
    description: 'An application module (its default export or export `app`) whose ServiceAuth, configuration and event handlers apply',
  });

  /** The instance this command opened or loaded; closed when the command ends. */
  private opened: ServiceAuth | undefined;

  /** The command's work. Expected failures are thrown (CliFailure, AuthError) and reported by `execute`. */
  protected abstract run(): Promise<void>;

  async execute(): Promise<number> {
    const status = await this.attempt(() => this.run());
    const closed = await this.attempt(async () => this.opened?.close());
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

  /** The ServiceAuth to work with, its storage connected and (unless configured otherwise) migrated. */
  protected async serviceAuth(): Promise<ServiceAuth> {
    const auth = await this.openServiceAuth();
    await auth.ready;
    return auth;
  }

  /**
   * The ServiceAuth, not necessarily started: the application's (`--app`) or one of our own on a
   * bare Express application configured by `--database` and the environment.
   */
  protected async openServiceAuth(): Promise<ServiceAuth> {
    if (this.opened) return this.opened;
    const auth = this.app ? await this.loadApplication(this.app) : new ServiceAuth(this.settings());
    auth.logger = cliLogger(this.context.stderr, auth.ready);
    this.opened = auth;
    return auth;
  }

  /**
   * The database URL the command works on, without opening a ServiceAuth of our own. With `--app`
   * the application's ServiceAuth is already opening (and perhaps migrating) the database as the
   * module loads: this waits for it to finish, so that two migrators never race.
   */
  protected async databaseUrl(): Promise<string> {
    if (!this.app) {
      const settings = this.settings();
      return readConfig(sourceFrom(settings), settings.get('env')).databaseUrl;
    }
    const auth = await this.openServiceAuth();
    await auth.ready.catch(() => undefined);
    return auth.config.databaseUrl;
  }

  /** The user with this email, or a failure saying that there is none. */
  protected async existingUser(auth: ServiceAuth, email: string): Promise<AuthUser> {
    const user = await auth.users.findByEmail(email);
    if (!user) throw new CliFailure(`Unknown email: no user with email ${normalizeEmail(email)}`);
    return user;
  }

  /** One line of the command's output on stdout. */
  protected print(line: string): void {
    this.context.stdout.write(`${line}\n`);
  }

  /** The bare application our own ServiceAuth reads its settings from: `--database`, then the environment. */
  private settings(): Express {
    const app = express();
    if (this.database !== undefined) app.set(DATABASE_KEY, this.database);
    // The CLI sends no mail, so it needs no public URL, which production otherwise requires.
    if (!process.env['SERVICE_AUTH_PUBLIC_URL']) app.set('SERVICE_AUTH_PUBLIC_URL', 'http://localhost');
    return app;
  }

  private async loadApplication(modulePath: string): Promise<ServiceAuth> {
    // The module builds its ServiceAuth while it loads, so `--database` can only reach it through
    // the environment; an application that sets the key with app.set() keeps its own database.
    if (this.database !== undefined) process.env[DATABASE_KEY] = this.database;
    return serviceAuthOfModule(modulePath, process.cwd());
  }

  private async attempt(work: () => Promise<unknown>): Promise<number> {
    try {
      await work();
      return 0;
    } catch (error) {
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
