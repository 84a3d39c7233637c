/**
 * Reading user rows: by id, by email or by a user object, with their roles. The one place that
 * turns a row into the `AuthUser` application code sees, and a missing user into a 404.
 */
import { AuthError } from '../errors.js';
import { User } from '../storage/entities/index.js';
import type { EntityManager } from '../storage/orm.js';
import type { Storage } from '../storage/storage.js';
import type { UserRef } from '../storage/user-ref.js';
import { AuthUser } from './auth-user.js';
import { normalizeEmail } from './emails.js';

export class UserLookup {
  constructor(private readonly storage: Storage) {}

  /** The user, or a 404 `not_found` naming what was looked for. */
  async get(ref: UserRef): Promise<AuthUser> {
    return toAuthUser(await this.require(await this.storage.em(), ref));
  }

  async find(ref: UserRef): Promise<AuthUser | null> {
    const user = await this.load(await this.storage.em(), ref);
    return user ? toAuthUser(user) : null;
  }

  /** The row, roles loaded, or a 404 `not_found`. */
  async require(em: EntityManager, ref: UserRef): Promise<User> {
    const user = await this.load(em, ref);
    if (!user) {
      const what =
        typeof ref === 'string' ? `email ${normalizeEmail(ref)}` : `id ${typeof ref === 'number' ? ref : ref.id}`;
      throw new AuthError('not_found', `no user with ${what}`);
    }
    return user;
  }

  async load(em: EntityManager, ref: UserRef): Promise<User | null> {
    const where =
      typeof ref === 'string' ? { email: normalizeEmail(ref) } : { id: typeof ref === 'number' ? ref : ref.id };
    return em.findOne(User, where, { populate: ['roles'] });
  }
}

/** Every user, oldest first (the database alone: the CLI's `auth list-users` builds no services). */
export async function listUsers(storage: Storage): Promise<AuthUser[]> {
  const em = await storage.em();
  const users = await em.find(User, {}, { populate: ['roles'], orderBy: { id: 'asc' } });
  return users.map(toAuthUser);
}

/** One page of users, oldest first: those whose address contains `email` (any case), if given. */
export async function searchUsers(storage: Storage, { email, offset, limit }: UserSearch): Promise<AuthUser[]> {
  const em = await storage.em();
  const query = em.createQueryBuilder(User, 'u').select('u.id').orderBy({ id: 'asc' }).offset(offset).limit(limit);
  // Addresses are stored in lower case. A literal substring: LIKE's wildcards in what was typed
  // match only themselves (ESCAPE, which SQLite and PostgreSQL both read).
  const text = email?.trim().toLowerCase();
  if (text) query.where(`u.email like ? escape '!'`, [`%${text.replace(/[!%_]/g, (c) => `!${c}`)}%`]);
  const ids = (await query.execute<{ id: number }[]>()).map((row) => row.id);
  const users = await em.find(User, { id: { $in: ids } }, { populate: ['roles'], orderBy: { id: 'asc' } });
  return users.map(toAuthUser);
}

export interface UserSearch {
  /** Part of the address. */
  email?: string | undefined;
  offset: number;
  limit: number;
}

export function toAuthUser(user: User): AuthUser {
  return new AuthUser(
    user.id,
    user.email,
    user.isAdmin,
    user.roles.getItems().map((role) => role.name),
    user.createdAt,
    {
      disabled: user.disabledAt != null,
      email_confirmed: user.emailConfirmedAt != null,
      mfa_enabled: user.mfaEnabledAt != null,
    },
  );
}
