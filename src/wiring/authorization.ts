/**
 * The last step of wiring.ts: what a principal may do. The named policies, the organization roles
 * bound to their organization by the tenant field, one ability per principal built from every kind
 * of rule, the user attributes rules may name, who asks a question, and the guards. Impersonation
 * is made here as well, because whether one user may act as another is a question of abilities.
 */
import type { AuthParts } from '../wiring.js';
import { AbilityFactory } from '../authorization/abilities.js';
import { Asking } from '../authorization/asking.js';
import { Guards } from '../authorization/guards.js';
import { OrgAccess } from '../authorization/org-access.js';
import { PolicyRegistry } from '../authorization/policies.js';
import { OrgRoleRules } from '../authorization/org-role-rules.js';
import { Tenant } from '../authorization/tenant.js';
import { UserAttributes } from '../authorization/user-attributes.js';
import { Impersonation } from '../impersonation/impersonation.js';
import { ImpersonationSessions } from '../sessions/impersonation-sessions.js';

export type Authorization = Pick<
  AuthParts,
  'policies' | 'orgRoles' | 'abilities' | 'userAttributes' | 'orgAccess' | 'asking' | 'impersonation' | 'guards'
>;

/** Needs of `parts` what every earlier step made (the credential resolver among it). */
export function wireAuthorization(parts: AuthParts, publicOrigin: string): Authorization {
  const { config, storage, audit, pluggable, sessions } = parts;
  const policies = new PolicyRegistry(pluggable);
  const tenant = new Tenant(config.tenantField);
  const orgRoles = new OrgRoleRules(tenant, parts.attributeNames);
  const abilities = new AbilityFactory(parts.roleRules, policies, orgRoles, parts.scopes);
  // `auth.invalidateUser`: a row of the change feed naming the user, as a change to their credentials writes.
  const noteChange = async (userId: number) =>
    storage.transaction(await storage.em(), (tx) => storage.changes.note(tx.em, [userId]));
  const userAttributes = new UserAttributes({
    names: parts.attributeNames,
    feed: storage.changes,
    log: pluggable,
    noteChange,
  });
  const orgAccess = new OrgAccess(abilities, () => parts.orgs, userAttributes);
  const asking = new Asking({ abilities, orgAccess, tenant });
  const impersonations = new ImpersonationSessions(storage, audit, sessions);
  const ttlSeconds = config.sessions.impersonationTtlSeconds;
  const impersonation = new Impersonation({
    ttlSeconds,
    sessions,
    impersonations,
    cookie: parts.cookie,
    credentials: parts.credentials,
    users: parts.users,
    abilities,
  });
  const guards = new Guards({
    credentials: parts.credentials,
    abilities,
    policies,
    orgs: orgAccess,
    tenant,
    attributes: userAttributes,
    publicOrigin,
  });
  return { policies, orgRoles, abilities, userAttributes, orgAccess, asking, impersonation, guards };
}
