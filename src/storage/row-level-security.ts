/**
 * SERVICE_AUTH_TENANT_RLS for the ORM given to `auth.enforce`: its tenant tables' policies
 * (tenant-policies.ts), the organization set in req.em's transactions (tenant-setting.ts), and the
 * start-up check that the role is bound by them (tenant-role-check.ts).
 */
import type { MikroORM } from '@mikro-orm/core';
import { ConfigError } from '../config/error.js';
import { applyTenantPolicies, tenantPoliciesSql, tenantTables } from './tenant-policies.js';
import { assertBoundByPolicies } from './tenant-role-check.js';
import { enableTenantSetting } from './tenant-setting.js';

/** Whether `orm` is on PostgreSQL: its platform is PostgreSQL's, or a subclass of it. */
export function isPostgres(orm: MikroORM): boolean {
  for (let proto: unknown = Object.getPrototypeOf(orm.em.getPlatform()); proto; proto = Object.getPrototypeOf(proto)) {
    if ((proto as { constructor?: { name?: string } }).constructor?.name === 'PostgreSqlPlatform') return true;
  }
  return false;
}

function assertPostgres(orm: MikroORM): void {
  if (isPostgres(orm)) return;
  const platform = orm.em.getPlatform().constructor.name.replace(/Platform$/, '');
  throw new ConfigError(
    'SERVICE_AUTH_TENANT_RLS',
    true,
    `false: row-level security is PostgreSQL's, and the ORM given to auth.enforce is on ${platform}`,
  );
}

/**
 * Turns row-level security on for req.em's work on `orm`: throws a ConfigError at once if `orm` is
 * not on PostgreSQL; the promise rejects if the role the ORM connects as would bypass the
 * policies, or a tenant table has none (and every req.em query then fails with that error).
 */
export function enableRowLevelSecurity(orm: MikroORM, field: string): Promise<void> {
  assertPostgres(orm);
  const checked = assertBoundByPolicies(orm, tenantTables(orm, field));
  enableTenantSetting(orm, checked);
  return checked;
}

/** The statements that give each of `orm`'s tenant tables its policy (idempotent). */
export function tenantPolicies(orm: MikroORM, field: string): string[] {
  assertPostgres(orm);
  return tenantPoliciesSql(orm, field);
}

/** Runs those statements through `orm` in one transaction and returns them; `orm` connects as the tables' owner. */
export function applyPolicies(orm: MikroORM, field: string): Promise<string[]> {
  assertPostgres(orm);
  return applyTenantPolicies(orm, field);
}
