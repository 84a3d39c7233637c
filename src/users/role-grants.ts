/**
 * Giving and taking away a user's global roles. A role given that does not exist yet is created
 * (as `create-user --role` does); two processes creating it at once both use the one that wins.
 * The caller drops the user's cached copy (service.ts).
 */
import { UniqueConstraintViolationException } from '@mikro-orm/core';
import type { AuditLog } from '../audit/audit-log.js';
import { AuthError } from '../errors.js';
import type { Storage } from '../storage/storage.js';
import type { UserRef } from '../storage/user-ref.js';
import { protectAdminAccount, type Operator } from './admin-accounts.js';
import type { AuthUser } from './auth-user.js';
import { ensureRoles } from './creation.js';
import { toAuthUser, type UserLookup } from './lookup.js';
import { validRoleName } from './role-names.js';

interface RoleDeps {
  storage: Storage;
  audit: AuditLog;
  lookup: UserLookup;
}

/** Gives the user a role, creating the role if it does not exist. */
export async function addRole(deps: RoleDeps, ref: UserRef, roleName: string): Promise<AuthUser> {
  const name = validRoleName(roleName);
  const { storage, lookup } = deps;
  const em = await storage.em();
  const user = await lookup.require(em, ref);
  for (let attempt = 1; ; attempt++) {
    try {
      await storage.transaction(em, async (tx) => {
        const [role] = await ensureRoles(tx.em, [name]);
        if (user.roles.contains(role!)) return;
        user.roles.add(role!);
        await storage.changes.note(tx.em, [user.id]);
        deps.audit.record(tx, { type: 'role_added', userId: user.id, email: user.email, detail: { role: name } });
      });
      break;
    } catch (error) {
      // Another process created the role at the same moment: use theirs.
      if (!(error instanceof UniqueConstraintViolationException) || attempt >= 3) throw error;
    }
  }
  return toAuthUser(user);
}

/** Takes a role away; a user without it, or an unknown role, is a 404 `not_found`. */
export async function removeRole(
  deps: RoleDeps,
  ref: UserRef,
  roleName: string,
  operator?: Operator,
): Promise<AuthUser> {
  const em = await deps.storage.em();
  const user = await deps.lookup.require(em, ref);
  protectAdminAccount(operator, { is_admin: user.isAdmin }, 'remove a role from');
  const role = user.roles.getItems().find((r) => r.name === roleName);
  if (!role) throw new AuthError('not_found', `${user.email} does not have the role ${JSON.stringify(roleName)}`);
  await deps.storage.transaction(em, async (tx) => {
    user.roles.remove(role);
    await deps.storage.changes.note(tx.em, [user.id]);
    deps.audit.record(tx, { type: 'role_removed', userId: user.id, email: user.email, detail: { role: roleName } });
  });
  return toAuthUser(user);
}
