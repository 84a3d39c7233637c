/**
 * PostgreSQL row-level security on an application's tenant tables (SERVICE_AUTH_TENANT_RLS): the
 * tables of the entities that have the tenant field, and the SQL that gives each one policy.
 *
 * The policy compares the tenant column with the setting `service_auth.org_id`, which req.em's
 * transactions set with `set_config(…, true)` (SET LOCAL: it ends with the transaction, so a pooled
 * connection never carries one request's organization into another's). A connection that has not
 * set it sees no row of a tenant table and can write none: `current_setting(…, true)` is NULL when
 * the setting was never set on the connection, and '' once a transaction that set it has ended;
 * both compare as unknown, which the policy reads as "no".
 *
 * `FORCE ROW LEVEL SECURITY` binds the table's owner too (without it, PostgreSQL exempts the owner);
 * superusers and roles with BYPASSRLS are exempt whatever the table says (tenant-role-check.ts).
 */
import type { MikroORM } from '@mikro-orm/core';
import { everyEntity } from './every-entity.js';

/** The setting the package owns: the organization of the current transaction. */
export const TENANT_SETTING = 'service_auth.org_id';
/** The name of the one policy the package puts on each tenant table. */
export const TENANT_POLICY = 'service_auth_tenant';

/** A tenant table: where it is, and the column and its type that name the organization. */
export interface TenantTable {
  /** The schema, or undefined for the connection's search path. */
  schema: string | undefined;
  table: string;
  column: string;
  /** The column's SQL type, to which the setting (text) is cast: the comparison can use an index. */
  type: string;
  /** The entities stored in it (several with single-table inheritance). */
  entities: string[];
}

const quote = (name: string): string => `"${name.replaceAll('"', '""')}"`;

/** `schema.table` or `table`, quoted. */
export function qualifiedName(table: Pick<TenantTable, 'schema' | 'table'>): string {
  return table.schema ? `${quote(table.schema)}.${quote(table.table)}` : quote(table.table);
}

/** The tables of `orm`'s entities that have the property `field`, one row per table. */
export function tenantTables(orm: MikroORM, field: string): TenantTable[] {
  const byName = new Map<string, TenantTable>();
  const defaultSchema = orm.config.get('schema');
  for (const meta of everyEntity(orm.getMetadata())) {
    if (meta.virtual || meta.embeddable || meta.abstract || !meta.tableName) continue;
    const property = meta.properties[field];
    if (!property?.fieldNames?.[0]) continue;
    const schema = meta.schema && meta.schema !== '*' ? meta.schema : defaultSchema;
    const key = `${schema ?? ''}.${meta.tableName}`;
    const known = byName.get(key);
    if (known) {
      known.entities.push(meta.className);
      continue;
    }
    const type = property.columnTypes?.[0] ?? 'integer';
    byName.set(key, {
      schema,
      table: meta.tableName,
      column: property.fieldNames[0],
      type,
      entities: [meta.className],
    });
  }
  return [...byName.values()].sort((a, b) => qualifiedName(a).localeCompare(qualifiedName(b)));
}

/** The condition of the policy, for USING and WITH CHECK alike. */
export function tenantCondition(table: TenantTable): string {
  return `${quote(table.column)} = nullif(current_setting('${TENANT_SETTING}', true), '')::${table.type}`;
}

/**
 * The statements that give `table` its policy. Idempotent: run again (after a column changed
 * type, or after an upgrade of the package), they leave one policy, the current one.
 */
export function tenantPolicySql(table: TenantTable): string[] {
  const name = qualifiedName(table);
  const condition = tenantCondition(table);
  return [
    `alter table ${name} enable row level security`,
    `alter table ${name} force row level security`,
    `drop policy if exists ${TENANT_POLICY} on ${name}`,
    `create policy ${TENANT_POLICY} on ${name} using (${condition}) with check (${condition})`,
  ];
}

/** Every statement for every tenant table of `orm`. */
export function tenantPoliciesSql(orm: MikroORM, field: string): string[] {
  return tenantTables(orm, field).flatMap(tenantPolicySql);
}

/**
 * Gives every tenant table its policy, in one transaction: a table is never left with row-level
 * security on and no policy. Run it as the tables' owner (a migration's role), not as the role
 * the application connects as.
 */
export async function applyTenantPolicies(orm: MikroORM, field: string): Promise<string[]> {
  const statements = tenantPoliciesSql(orm, field);
  const connection = orm.em.getConnection('write');
  await connection.transactional(async (trx) => {
    for (const statement of statements) await connection.execute(statement, [], 'run', trx);
  });
  return statements;
}
