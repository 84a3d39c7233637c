/** `auth.roles`: the role names stored in the database. What a role permits is `auth.defineRole`'s job. */
import { UniqueConstraintViolationException } from '@mikro-orm/core';
import { AuthError } from '../errors.js';
import { Role, UserRole } from '../storage/entities/index.js';
import type { Storage } from '../storage/storage.js';
import { validRoleName } from './role-names.js';
import type { UserService } from './service.js';

export interface RoleInfo {
  name: string;
  created_at: string;
}

/**
 * Whether a role exists, and what it grants: `defined` when a definition names it (its rules say
 * what it grants); `stored` when only the database has it (made by `create-role`, `create-user
 * --role`, or given with `--force`): it exists, and grants nothing until a definition gives it
 * rules; `unknown` when it is neither, most likely a typo.
 */
export type RoleStanding = 'defined' | 'stored' | 'unknown';

export class RoleService {
  constructor(
    private readonly storage: Storage,
    private readonly users: UserService,
    /** The global roles' definitions (`auth.defineRole`, policy files). */
    private readonly definitions: { names(): string[] },
  ) {}

  /**
   * The one rule of giving a role, for every door (the CLI's `add-role`, the admin console): a role
   * that exists may be given, a name that is `unknown` is refused (422 `unknown_role`, or the CLI's
   * `--force`). A role created on purpose is not a typo, even before a definition names it.
   */
  async standing(roleName: string): Promise<RoleStanding> {
    const name = validRoleName(roleName);
    if (this.definitions.names().includes(name)) return 'defined';
    const em = await this.storage.em();
    return (await em.count(Role, { name })) > 0 ? 'stored' : 'unknown';
  }

  /** Creates the role; returns false if it already existed. */
  async create(roleName: string): Promise<boolean> {
    const name = validRoleName(roleName);
    const em = await this.storage.em();
    if (await em.count(Role, { name })) return false;
    try {
      await em.persist(em.create(Role, { name })).flush(); // MikroORM 7 has no persistAndFlush
      return true;
    } catch (error) {
      if (error instanceof UniqueConstraintViolationException) return false;
      throw error;
    }
  }

  async list(): Promise<RoleInfo[]> {
    const em = await this.storage.em();
    const roles = await em.find(Role, {}, { orderBy: { name: 'asc' } });
    return roles.map((role) => ({ name: role.name, created_at: role.createdAt.toISOString() }));
  }

  /**
   * Deletes the role. A role some users still hold is refused (409 `role_in_use`, naming how many)
   * unless `force`, which takes it from them in the same transaction. An unknown role is a 404.
   * Returns the number of users it was taken from.
   */
  async delete(roleName: string, options: { force?: boolean } = {}): Promise<number> {
    const name = validRoleName(roleName);
    const em = await this.storage.em();
    const holders = await this.storage.transaction(em, async (tx) => {
      const role = await tx.em.findOne(Role, { name });
      if (!role) throw new AuthError('not_found', `no role named ${JSON.stringify(name)}`);
      const links = await tx.em.find(UserRole, { role: role.id });
      if (links.length > 0 && !options.force) {
        throw new AuthError(
          'role_in_use',
          `the role ${JSON.stringify(name)} is held by ${links.length} ` +
            `user${links.length === 1 ? '' : 's'}; take it from them first, or force the deletion`,
        );
      }
      const ids = links.map((link) => link.user.id);
      await tx.em.nativeDelete(UserRole, { role: role.id });
      await tx.em.nativeDelete(Role, { id: role.id });
      await this.storage.changes.note(tx.em, ids);
      tx.afterCommit(() => this.users.forget(ids));
      return ids.length;
    });
    return holders;
  }
}
