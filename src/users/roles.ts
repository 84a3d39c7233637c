/** `auth.roles`: the role names stored in the database. What a role permits is `auth.defineRole`'s job. */
import { UniqueConstraintViolationException } from '@mikro-orm/core';
import { ValidationError } from '../errors.js';
import { Role } from '../storage/entities/index.js';
import type { Storage } from '../storage/storage.js';

const ROLE_NAME = /^[A-Za-z0-9_.:-]{1,64}$/;

export function validRoleName(name: string): string {
  if (typeof name !== 'string' || !ROLE_NAME.test(name)) {
    throw new ValidationError([{ field: 'role', message: `${JSON.stringify(name)} is not a role name (1 to 64 of A-Z a-z 0-9 _ . : -)` }]);
  }
  return name;
}

export interface RoleInfo {
  name: string;
  created_at: string;
}

export class RoleService {
  constructor(private readonly storage: Storage) {}

  /** Creates the role; returns false if it already existed. */
  async create(roleName: string): Promise<boolean> {
    const name = validRoleName(roleName);
    const em = await this.storage.em();
    if (await em.count(Role, { name })) return false;
    try {
      await em.persistAndFlush(em.create(Role, { name }));
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
}
