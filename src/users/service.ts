/**
 * `auth.users`: creating, finding and changing users. The HTTP API and the CLI both go through
 * here, so the email and password rules hold the same way everywhere.
 */
import { UniqueConstraintViolationException } from '@mikro-orm/core';
import type { PasswordPolicy } from '../config.js';
import { AuthError } from '../errors.js';
import type { PasswordHasher } from '../passwords/hashing.js';
import { assertPasswordRules } from '../passwords/rules.js';
import { PasswordReset, Role, User } from '../storage/entities/index.js';
import type { EntityManager } from '../storage/orm.js';
import type { Storage } from '../storage/storage.js';
import { AuthUser } from './auth-user.js';
import { normalizeEmail, validEmail } from './emails.js';
import { validRoleName } from './roles.js';

export interface NewUser {
  email: string;
  password: string;
  isAdmin?: boolean;
  /** Role names; roles that do not exist yet are created. */
  roles?: Iterable<string>;
}

/** A user named by id, by email, or by a user object. */
export type UserRef = number | string | { readonly id: number };

export class UserService {
  /** Called with a user's id after anything that changes who they are or what they hold. */
  private readonly changeListeners: ((userId: number) => void)[] = [];

  constructor(
    private readonly storage: Storage,
    private readonly hasher: PasswordHasher,
    private readonly policy: PasswordPolicy,
  ) {}

  onChange(listener: (userId: number) => void): void {
    this.changeListeners.push(listener);
  }

  /** Validates everything first (422 invalid_email, 422 password_rules), then writes in one transaction. */
  async create(input: NewUser): Promise<AuthUser> {
    const email = validEmail(input.email);
    assertPasswordRules(input.password, this.policy);
    const roleNames = [...new Set([...(input.roles ?? [])].map(validRoleName))];
    const em = await this.storage.em();
    if (await em.count(User, { email })) throw emailTaken(email);
    const passwordHash = await this.hasher.hash(input.password);
    // Two registrations for one email can both pass the count above, and two creations can race
    // to create one new role: unique indexes decide. A lost email race is `email_taken`; a lost
    // role race is tried again, finding the role the other one created.
    for (let attempt = 1; ; attempt++) {
      try {
        const user = await this.storage.transaction(em, async (tx) => {
          const created = tx.create(User, { email, passwordHash, isAdmin: input.isAdmin ?? false });
          for (const role of await ensureRoles(tx, roleNames)) created.roles.add(role);
          return created;
        });
        return toAuthUser(user);
      } catch (error) {
        if (!(error instanceof UniqueConstraintViolationException)) throw error;
        if (isEmailConflict(error) || attempt >= 3) throw emailTaken(email);
      }
    }
  }

  /** The user, or a 404 `not_found` naming what was looked for. */
  async get(ref: UserRef): Promise<AuthUser> {
    return toAuthUser(await this.require(await this.storage.em(), ref));
  }

  async findById(id: number): Promise<AuthUser | null> {
    const user = await this.load(await this.storage.em(), id);
    return user ? toAuthUser(user) : null;
  }

  async findByEmail(email: string): Promise<AuthUser | null> {
    const user = await this.load(await this.storage.em(), email);
    return user ? toAuthUser(user) : null;
  }

  /** Every user, oldest first. */
  async list(): Promise<AuthUser[]> {
    const em = await this.storage.em();
    const users = await em.find(User, {}, { populate: ['roles'], orderBy: { id: 'asc' } });
    return users.map(toAuthUser);
  }

  /**
   * Sets a new password after checking the rules; pending reset links stop working, as after any
   * password change. Ending sessions and tokens is the caller's choice (see `auth.resetPassword`).
   */
  async setPassword(ref: UserRef, password: string): Promise<AuthUser> {
    assertPasswordRules(password, this.policy);
    const em = await this.storage.em();
    const user = await this.require(em, ref);
    const passwordHash = await this.hasher.hash(password);
    await this.storage.transaction(em, async (tx) => {
      await tx.nativeUpdate(User, { id: user.id }, { passwordHash, updatedAt: new Date() });
      await tx.nativeDelete(PasswordReset, { user: user.id, usedAt: null });
    });
    return toAuthUser(user);
  }

  async setAdmin(ref: UserRef, isAdmin: boolean): Promise<AuthUser> {
    const em = await this.storage.em();
    const user = await this.require(em, ref);
    user.isAdmin = isAdmin;
    await em.flush();
    this.changed(user.id);
    return toAuthUser(user);
  }

  /** Gives the user a role, creating the role if it does not exist. */
  async addRole(ref: UserRef, roleName: string): Promise<AuthUser> {
    const name = validRoleName(roleName);
    const em = await this.storage.em();
    const user = await this.require(em, ref);
    for (let attempt = 1; ; attempt++) {
      try {
        await this.storage.transaction(em, async (tx) => {
          const [role] = await ensureRoles(tx, [name]);
          user.roles.add(role!);
        });
        break;
      } catch (error) {
        // Another process created the role at the same moment: use theirs.
        if (!(error instanceof UniqueConstraintViolationException) || attempt >= 3) throw error;
      }
    }
    this.changed(user.id);
    return toAuthUser(user);
  }

  /** Takes a role away; a user without it, or an unknown role, is a 404 `not_found`. */
  async removeRole(ref: UserRef, roleName: string): Promise<AuthUser> {
    const em = await this.storage.em();
    const user = await this.require(em, ref);
    const role = user.roles.getItems().find((r) => r.name === roleName);
    if (!role) throw new AuthError('not_found', `${user.email} does not have the role ${JSON.stringify(roleName)}`);
    user.roles.remove(role);
    await em.flush();
    this.changed(user.id);
    return toAuthUser(user);
  }

  /**
   * The user with this email and password, or null. An unknown email costs the same hashing work
   * as a wrong password, so response times do not tell which emails have accounts. A hash made
   * with weaker parameters than today's is replaced after a successful check.
   */
  async authenticate(email: string, password: string): Promise<AuthUser | null> {
    const em = await this.storage.em();
    const user = await this.load(em, email);
    if (!user) {
      await this.hasher.verifyNothing(password);
      return null;
    }
    if (!(await this.hasher.verify(user.passwordHash, password))) return null;
    if (this.hasher.needsRehash(user.passwordHash)) {
      const passwordHash = await this.hasher.hash(password);
      await em.nativeUpdate(User, { id: user.id, passwordHash: user.passwordHash }, { passwordHash });
    }
    return toAuthUser(user);
  }

  private async require(em: EntityManager, ref: UserRef): Promise<User> {
    const user = await this.load(em, ref);
    if (!user) {
      const what = typeof ref === 'string' ? `email ${normalizeEmail(ref)}` : `id ${typeof ref === 'number' ? ref : ref.id}`;
      throw new AuthError('not_found', `no user with ${what}`);
    }
    return user;
  }

  private async load(em: EntityManager, ref: UserRef): Promise<User | null> {
    const where = typeof ref === 'string' ? { email: normalizeEmail(ref) } : { id: typeof ref === 'number' ? ref : ref.id };
    return em.findOne(User, where, { populate: ['roles'] });
  }

  private changed(userId: number): void {
    for (const listener of this.changeListeners) listener(userId);
  }
}

export function toAuthUser(user: User): AuthUser {
  return new AuthUser(
    user.id,
    user.email,
    user.isAdmin,
    user.roles.getItems().map((role) => role.name),
    user.createdAt,
  );
}

/** The named roles, created where missing. */
export async function ensureRoles(em: EntityManager, names: string[]): Promise<Role[]> {
  if (names.length === 0) return [];
  const existing = await em.find(Role, { name: { $in: names } });
  const byName = new Map(existing.map((role) => [role.name, role]));
  return names.map((name) => byName.get(name) ?? em.create(Role, { name }));
}

/** Whether a unique violation is the email's (SQLite and PostgreSQL both name the column or index). */
function isEmailConflict(error: UniqueConstraintViolationException): boolean {
  return /email/i.test(error.message);
}

function emailTaken(email: string): AuthError {
  return new AuthError('email_taken', `a user with email ${email} already exists`);
}
