/**
 * What the parts of `auth.orgs` share: storage, the audit log and the events, the caches of the
 * hot reads, the owner roles, and how an organization and a user are found inside a change's
 * transaction, the organization's row locked so that changes to its members happen one at a time
 * (the last-owner rule counts owners, and two changes counting at once could both pass).
 */
import { LockMode } from '@mikro-orm/core';
import type { AuditLog } from '../audit/audit-log.js';
import { AuthError } from '../errors.js';
import type { EventBus, OrgEventDetail, OrgEventName } from '../events.js';
import { Organization } from '../storage/entities/index.js';
import type { EntityManager } from '../storage/orm.js';
import type { Storage } from '../storage/storage.js';
import { AuthUser } from '../users/auth-user.js';
import type { UserLookup } from '../users/lookup.js';
import type { MembershipCache, OrgCache } from './caches.js';
import { isIdString } from './names.js';
import type { OrgActor, OrgRef } from './views.js';

export interface OrgSettings {
  /** SERVICE_AUTH_ORG_OWNER_ROLES. */
  readonly ownerRoles: readonly string[];
  /** SERVICE_AUTH_INVITATION_TTL. */
  readonly invitationTtlSeconds: number;
  /** SERVICE_AUTH_MAX_ORGS_PER_USER: the organizations one user may own. */
  readonly maxOwnedPerUser: number;
}

export interface OrgDeps {
  storage: Storage;
  audit: AuditLog;
  events: EventBus;
  lookup: UserLookup;
  orgCache: OrgCache;
  memberships: MembershipCache;
  settings: OrgSettings;
  /** Whether an organization role of this name is defined (`auth.defineOrgRole`, policy files). */
  knownOrgRole: (name: string) => boolean;
}

/** The organization's row, locked until the transaction ends, or a 404 `not_found`. */
export async function lockedOrg(em: EntityManager, ref: OrgRef): Promise<Organization> {
  const org = await em.findOne(Organization, whereOrg(ref), { lockMode: LockMode.PESSIMISTIC_WRITE });
  if (!org) throw orgNotFound(ref);
  return org;
}

/** The organization's row, or a 404 `not_found`. */
export async function requireOrg(em: EntityManager, ref: OrgRef): Promise<Organization> {
  const org = await em.findOne(Organization, whereOrg(ref));
  if (!org) throw orgNotFound(ref);
  return org;
}

function whereOrg(ref: OrgRef): { id: number } | { slug: string } {
  if (typeof ref === 'object' && ref !== null) return { id: ref.id };
  if (typeof ref === 'number') return { id: Number.isSafeInteger(ref) ? ref : 0 };
  return isIdString(String(ref)) ? { id: Number(ref) } : { slug: String(ref) };
}

function orgNotFound(ref: OrgRef): AuthError {
  const what =
    typeof ref === 'object' && ref !== null
      ? `id ${ref.id}`
      : typeof ref === 'number' || isIdString(String(ref))
        ? `id ${ref}`
        : `slug ${JSON.stringify(ref)}`;
  return new AuthError('not_found', `no organization with ${what}`);
}

/** Whether these roles include an owner role. */
export function holdsOwnerRole(roles: readonly string[], ownerRoles: readonly string[]): boolean {
  return roles.some((role) => ownerRoles.includes(role));
}

/** The acting user's id, if one acted. */
export function actorId(actor: OrgActor | undefined): number | null {
  if (actor === null || actor === undefined) return null;
  return typeof actor === 'number' ? actor : actor.id;
}

/** Runs an event's handlers once its change committed, handing them the acting user as it is now. */
export async function emitOrgEvent(
  deps: OrgDeps,
  name: OrgEventName,
  actor: OrgActor | undefined,
  detail: OrgEventDetail,
): Promise<void> {
  const id = actorId(actor);
  const user = id === null ? null : actor instanceof AuthUser ? actor : await deps.lookup.find(id);
  await deps.events.emitOrg(name, user, detail);
}
