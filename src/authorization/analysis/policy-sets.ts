/**
 * The two sides of a policy diff, loaded into registries of their own: a policy file or
 * directory (a path), a policy file's content (an object, as `auth.loadPolicies` reads it), or
 * files already read (`{ file, document }[]`, as the CLI reads them from git). `base`: roles
 * defined first (the application's, with `--app`), which the files' roles of the same name replace.
 */
import { AttributeNames } from '../attribute-names.js';
import { RoleRules } from '../role-rules.js';
import { OrgRoleRules } from '../org-role-rules.js';
import { loadRuleDocument, loadRuleFiles } from '../rule-files.js';
import { Tenant } from '../tenant.js';
import type { PolicySet } from './diff.js';

/** A policy file's content, and the name it goes by in messages. */
export interface PolicyDocument {
  file: string;
  document: unknown;
}

export type PolicySource = string | PolicyDocument[] | Record<string, unknown>;

export interface PolicySetOptions {
  /** SERVICE_AUTH_TENANT_FIELD; default `org_id`. */
  tenantField?: string | undefined;
  base?: PolicySet | undefined;
}

/** The roles of the source; a TypeError naming the file and the problem for a malformed one. */
export function policySetOf(source: PolicySource, { tenantField, base }: PolicySetOptions = {}): PolicySet {
  // One set of attribute names for both registries: a file's `userAttributes` serve every role of the side.
  const attributes = new AttributeNames();
  const set = {
    roles: new RoleRules(undefined, attributes),
    orgRoles: new OrgRoleRules(new Tenant(tenantField), attributes),
  };
  if (base) {
    set.roles.copyFrom(base.roles);
    set.orgRoles.copyFrom(base.orgRoles);
  }
  if (typeof source === 'string') loadRuleFiles(set.roles, source, set.orgRoles);
  else if (Array.isArray(source))
    for (const { file, document } of source) loadRuleDocument(set.roles, document, file, set.orgRoles);
  else if (source !== null && typeof source === 'object')
    loadRuleDocument(set.roles, source, 'the policy object', set.orgRoles);
  else throw new TypeError("policies.diff(a, b): each side is a path, or a policy file's content as an object");
  return set;
}
