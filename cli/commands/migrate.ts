import { Command } from 'clipanion';
import { redactUrl } from '../../src/config/redact.js';
import { CliFailure } from './failures.js';
import { ServiceAuthCommand } from './base.js';

export class MigrateCommand extends ServiceAuthCommand {
  static override paths = [['auth', 'migrate']];

  static override usage = Command.Usage({
    category: 'Database',
    description: 'Apply pending migrations',
    details: `
      Creates or updates service-auth's tables (prefixed \`service_auth_\`) in the database, applying every
      pending migration in one transaction, and prints what it applied. It works even when
      \`SERVICE_AUTH_AUTO_MIGRATE\` is false, which is what it is for: deployments that migrate as a separate step.

      With \`--app\`, the database is the application's. Its ServiceAuth is kept from migrating on its own as
      the module loads (unless the application sets \`SERVICE_AUTH_AUTO_MIGRATE\` with \`app.set\`), so that this
      command applies, and reports, what was pending.
    `,
    examples: [
      ['Migrate the database SERVICE_AUTH_DATABASE_URL names (else ./service-auth.sqlite)', '$0 auth migrate'],
      ['Migrate a PostgreSQL database', '$0 auth migrate --database postgresql://auth@db.internal/app'],
      ["Migrate the application's database", '$0 auth migrate --app dist/app.js'],
    ],
  });

  protected override async run(): Promise<void> {
    // The application's ServiceAuth reads the environment as the module loads: left to migrate on
    // its own, it would apply the migrations itself and leave this command nothing to report.
    if (this.app) process.env['SERVICE_AUTH_AUTO_MIGRATE'] = 'false';
    const url = await this.databaseUrl();
    const where = redactUrl(url);
    const { migratorOf, openOrm } = await import('../../src/storage/orm.js');
    const orm = await openOrm(url, { migrate: false });
    try {
      let applied;
      try {
        applied = await (await migratorOf(orm)).up();
      } catch (error) {
        const reason = redactUrl(error instanceof Error ? error.message : String(error)).split('\n')[0];
        throw new CliFailure(`Migrating ${where} failed, and nothing was applied: ${reason}`);
      }
      for (const migration of applied) this.print(`Applied ${migration.name}`);
      this.print(applied.length ? `${where} is up to date` : `Nothing to migrate: ${where} is up to date`);
    } finally {
      await orm.close(true);
    }
  }
}
