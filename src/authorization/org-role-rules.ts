/**
 * Organization roles (`auth.defineOrgRole`): a registry of the same kind as the global roles
 * (role-rules.ts), but held by memberships, not users, and handed out for one organization only,
 * every rule bound to it by the tenant condition (tenant.ts) and free to use `${org.*}`.
 */
import type { AttributeNames } from './attribute-names.js';
import type { OrgRef } from './placeholders.js';
import type { Principal } from './principal.js';
import { RoleRules, type RoleRule } from './role-rules.js';
import type { Tenant } from './tenant.js';

/**
 * Organization roles: held by memberships, not users, and handed out for one organization, every
 * rule bound to it by the tenant condition.
 */
export class OrgRoleRules extends RoleRules {
  /** SERVICE_AUTH_TENANT_FIELD: how a subject names its organization. */
  constructor(
    override readonly tenant: Tenant,
    attributes?: AttributeNames,
  ) {
    super(tenant, attributes);
  }

  /** The rules a membership's roles grant in the organization, interpolated for the user and it. */
  rulesIn(user: Principal, org: OrgRef, roles: Iterable<string>): RoleRule[] {
    return this.collectAll(roles, { user, org });
  }

  /** Organization roles are held in an organization only: no rules outside one. */
  override rulesFor(): RoleRule[] {
    return [];
  }
}
