/**
 * What `auth.enforce(orm)` checks before req.em uses the database with SERVICE_AUTH_TENANT_RLS on:
 * that the role the application connects as is bound by the tenant policies. PostgreSQL exempts
 * superusers and roles with BYPASSRLS from every policy, and a table's owner from its own table's
 * policies unless the table forces them; a policy that does not bind the connection would be a
 * second line that is not there, so start-up refuses rather than run without it.
 */
import type { MikroORM } from '@mikro-orm/core';
import { qualifiedName, TENANT_POLICY, type TenantTable } from './tenant-policies.js';

interface RoleRow {
  role: string;
  rolsuper: boolean;
  rolbypassrls: boolean;
}

interface TableRow {
  found: boolean;
  enabled: boolean | null;
  forced: boolean | null;
  owned: boolean | null;
  policy: boolean | null;
}

const FIX_POLICIES =
  "run `auth rls apply --app <module>`, auth.applyTenantPolicies(orm) or auth.tenantPolicies(orm)'s statements " +
  "in a migration, as the tables' owner";
const FIX_ROLE =
  'connect as a role without SUPERUSER or BYPASSRLS (CREATE ROLE app LOGIN PASSWORD …; GRANT SELECT, INSERT, UPDATE, ' +
  'DELETE ON ALL TABLES IN SCHEMA public TO app), see docs/row-level-security.md';

/** Throws an Error naming what would bypass the policies and the fix; resolves when nothing does. */
export async function assertBoundByPolicies(orm: MikroORM, tables: readonly TenantTable[]): Promise<void> {
  const connection = orm.em.getConnection('write');
  const [role] = await connection.execute<RoleRow[]>(
    'select current_user as role, rolsuper, rolbypassrls from pg_roles where rolname = current_user',
  );
  const prefix = 'SERVICE_AUTH_TENANT_RLS is on, but';
  if (role?.rolsuper)
    throw new Error(
      `${prefix} the database role "${role.role}" is a superuser, which row-level security does not bind: ${FIX_ROLE}`,
    );
  if (role?.rolbypassrls) throw new Error(`${prefix} the database role "${role.role}" has BYPASSRLS: ${FIX_ROLE}`);
  if (tables.length === 0) {
    throw new Error(
      `${prefix} the ORM given to auth.enforce has no entity with the tenant field (SERVICE_AUTH_TENANT_FIELD)`,
    );
  }
  const problems: string[] = [];
  for (const table of tables) {
    const name = qualifiedName(table);
    const [row] = await connection.execute<TableRow[]>(
      `select c.oid is not null as found, c.relrowsecurity as enabled, c.relforcerowsecurity as forced,
         pg_has_role(current_user, c.relowner, 'USAGE') as owned,
         exists (select 1 from pg_policy p where p.polrelid = c.oid and p.polname = ?) as policy
       from (select to_regclass(?) as oid) r left join pg_class c on c.oid = r.oid`,
      [TENANT_POLICY, name],
    );
    if (!row?.found) problems.push(`the table ${name} does not exist (create the schema, then ${FIX_POLICIES})`);
    else if (!row.enabled || !row.policy) problems.push(`the table ${name} has no tenant policy (${FIX_POLICIES})`);
    else if (row.owned && !row.forced) {
      problems.push(`the role "${role?.role}" owns ${name}, which does not force row-level security (${FIX_POLICIES})`);
    }
  }
  if (problems.length > 0) throw new Error(`${prefix} ${problems.join('; ')}`);
}
