/**
 * The rules of JSON policy files alone, without an application or a database: their global and
 * organization roles (and the user attribute names they declare), and no named policies, which are
 * code. What the CLI decides with when it is given a directory instead of the application (`auth
 * check`, `auth test-policies`): built as the package builds its own, so that both decide alike.
 */
import type { LoggerHolder } from '../logger.js';
import { AbilityFactory } from './abilities.js';
import type { ExplainDeps } from './explain.js';
import { PolicyRegistry } from './policies.js';
import { RoleRules } from './role-rules.js';
import { OrgRoleRules } from './org-role-rules.js';
import { loadRuleFiles } from './rule-files.js';
import { Tenant } from './tenant.js';

/**
 * The roles of `path` (a file, or every `.json` file of a directory). Malformed rules throw, naming
 * the file and the rule. `tenantField`: SERVICE_AUTH_TENANT_FIELD (default `org_id`).
 */
export function rulesFromFiles(path: string, log: LoggerHolder, tenantField?: string): ExplainDeps {
  // One set of user attribute names: those a file declares (`"userAttributes"`) serve every role.
  const roles = new RoleRules();
  const orgRoles = new OrgRoleRules(new Tenant(tenantField), roles.attributes);
  loadRuleFiles(roles, path, orgRoles);
  const policies = new PolicyRegistry(log);
  return { abilities: new AbilityFactory(roles, policies, orgRoles), roles, policies };
}
