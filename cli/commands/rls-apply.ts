import type { EntitySchema } from '@mikro-orm/core';
import { Command, Option } from 'clipanion';
import { ServiceAuthCommand } from './base.js';
import { CliFailure } from './failures.js';
import { required } from './option-rules.js';

export class RlsApplyCommand extends ServiceAuthCommand {
  static override paths = [['auth', 'rls', 'apply']];

  static override usage = Command.Usage({
    category: 'Database',
    description: "Give the application's tenant tables their row-level security policy (PostgreSQL)",
    details: `
      For SERVICE_AUTH_TENANT_RLS: each table of the application's entities with the tenant field
      (SERVICE_AUTH_TENANT_FIELD, default \`org_id\`) gets row-level security, forced, and the one policy
      \`service_auth_tenant\`, which lets a transaction see and write only the rows of the organization
      \`req.em\` sets for it. The statements are idempotent and run in one transaction; each is printed.

      The entities are the MikroORM entity schemas the module exports (\`export { entities }\`:
      \`defineEntity\` or \`new EntitySchema\`, or lists of them). \`--database\` is the PostgreSQL database
      of their tables, reached as the tables' owner (not the role the application connects as); without it,
      the application's SERVICE_AUTH_DATABASE_URL. \`--print\` prints the statements without connecting, for a
      migration or psql.
    `,
    examples: [
      ["As the tables' owner", '$0 auth rls apply --app dist/app.js --database postgresql://owner@db/app'],
      ['Print the statements only', '$0 auth rls apply --app dist/app.js --print'],
    ],
  });

  static override schema = [required('app', '--app')];

  printOnly = Option.Boolean('--print', false, {
    description: 'Print the statements without connecting to the database',
  });

  protected override async run(): Promise<void> {
    const parts = await this.openParts();
    const [{ EntitySchema: Schema, MikroORM }, { PostgreSqlDriver }, { exportsOfModule }, storage] = await Promise.all([
      import('@mikro-orm/core'),
      import('@mikro-orm/postgresql'),
      import('./application-module.js'),
      import('../../src/storage/row-level-security.js'),
    ]);
    const entities = entitySchemas(await exportsOfModule(this.app!, process.cwd()), Schema);
    if (entities.length === 0) {
      throw new CliFailure(
        `${this.app} exports no MikroORM entity schemas: export them (export { entities }) for auth rls apply`,
      );
    }
    await parts.ready.catch(() => undefined);
    const url = this.database ?? parts.config.databaseUrl;
    if (!/^postgres(?:ql)?:\/\//.test(url)) {
      throw new CliFailure(
        `Row-level security is PostgreSQL's: the database is ${url.split(':')[0]}: (give --database postgresql://…)`,
      );
    }
    const orm = await MikroORM.init({
      driver: PostgreSqlDriver,
      clientUrl: url,
      entities,
      connect: !this.printOnly,
      debug: false,
    });
    try {
      const field = parts.config.tenantField;
      const statements = this.printOnly ? storage.tenantPolicies(orm, field) : await storage.applyPolicies(orm, field);
      for (const statement of statements) this.print(`${statement};`);
    } catch (error) {
      throw new CliFailure(`auth rls apply: ${error instanceof Error ? error.message : String(error)}`);
    } finally {
      await orm.close();
    }
  }
}

/** The entity schemas among a module's exports, and in the lists it exports. */
function entitySchemas(values: readonly unknown[], Schema: typeof EntitySchema): EntitySchema[] {
  const all: unknown[] = values.flatMap((value) => (Array.isArray(value) ? value : [value]));
  return all.filter((value): value is EntitySchema => value instanceof Schema);
}
