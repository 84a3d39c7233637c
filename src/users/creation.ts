/**
 * Creating users: the address and password rules, the hash, and one transaction for the user and
 * their roles. Two creations racing for one address are decided by the unique index.
 */
import { UniqueConstraintViolationException, type EntityManager as CoreEntityManager } from '@mikro-orm/core';
import type { AuditLog } from '../audit/audit-log.js';
import { AuthError } from '../errors.js';
import { Role, User } from '../storage/entities/index.js';
import type { Storage } from '../storage/storage.js';
import type { AuthUser } from './auth-user.js';
import { validEmail } from './emails.js';
import { toAuthUser } from './lookup.js';
import type { PasswordChanges } from './password-changes.js';
import { validRoleName } from './role-names.js';

export interface NewUser {
  email: string;
  password: string;
  isAdmin?: boolean;
  /** Role names; roles that do not exist yet are created. */
  roles?: Iterable<string>;
  /** Whether the address counts as confirmed (default true: an operator or the application vouches for it). */
  emailConfirmed?: boolean;
}

/**
 * The stored hash of an account made through an identity provider (src/sso/): no password matches
 * it (it is no argon2 hash), until a password reset sets one.
 */
export const NO_PASSWORD_HASH = '!';

/** How the audit log names a creation: by an operator or the application, or a person registering. */
export type CreationRecord = 'user_created' | 'user_registered';

/** A user whose address and password were checked, and the password hashed, already. */
export interface CheckedUser {
  email: string;
  passwordHash: string;
  roleNames: string[];
  emailConfirmed: boolean;
  isAdmin?: boolean;
}

export class UserCreation {
  constructor(
    private readonly storage: Storage,
    private readonly passwords: PasswordChanges,
    private readonly audit: AuditLog,
  ) {}

  /** Validates everything first (422 invalid_email, 422 password_rules), then writes in one transaction. */
  async create(input: NewUser, recordAs: CreationRecord = 'user_created'): Promise<AuthUser> {
    const checked = await this.check(input);
    if (await this.isTaken(checked.email)) throw emailTaken(checked.email);
    return this.insert({ ...checked, passwordHash: await this.passwords.hash(input.password) }, recordAs);
  }

  /**
   * A user who signs in through an identity provider, without a password: the provider verified
   * the address, so it counts as confirmed. 409 `email_taken` if the address has an account.
   */
  async createWithoutPassword(input: { email: string; roles: Iterable<string> }): Promise<AuthUser> {
    const email = validEmail(input.email);
    const roleNames = [...new Set([...input.roles].map(validRoleName))];
    if (await this.isTaken(email)) throw emailTaken(email);
    return this.insert({ email, passwordHash: NO_PASSWORD_HASH, roleNames, emailConfirmed: true }, 'user_registered');
  }

  /** Whether the user has a password to log in with. */
  async hasPassword(userId: number): Promise<boolean> {
    const user = await (await this.storage.em()).fork().findOne(User, { id: userId }, { fields: ['passwordHash'] });
    return user !== null && user.passwordHash !== NO_PASSWORD_HASH;
  }

  /** The address and role names in their stored form, after the rules (422 invalid_email, 422 password_rules). */
  async check(input: NewUser): Promise<Omit<CheckedUser, 'passwordHash'>> {
    const email = validEmail(input.email);
    this.passwords.assertRules(input.password);
    const roleNames = [...new Set([...(input.roles ?? [])].map(validRoleName))];
    return { email, roleNames, emailConfirmed: input.emailConfirmed ?? true, isAdmin: input.isAdmin ?? false };
  }

  /** Whether a user has this (normalized) address. */
  async isTaken(email: string): Promise<boolean> {
    return (await (await this.storage.em()).count(User, { email })) > 0;
  }

  /** Writes the user and their roles; an address taken meanwhile is `email_taken`. */
  async insert(input: CheckedUser, recordAs: CreationRecord): Promise<AuthUser> {
    const { email, passwordHash, roleNames } = input;
    const em = await this.storage.em();
    const emailConfirmedAt = input.emailConfirmed ? new Date() : null;
    // Two registrations for one email can both pass the count before, and two creations can race
    // to create one new role: unique indexes decide. A lost email race is `email_taken`; a lost
    // role race is tried again, finding the role the other one created.
    for (let attempt = 1; ; attempt++) {
      try {
        const user = await this.storage.transaction(em, async (tx) => {
          const created = tx.em.create(User, {
            email,
            passwordHash,
            isAdmin: input.isAdmin ?? false,
            emailConfirmedAt,
          });
          for (const role of await ensureRoles(tx.em, roleNames)) created.roles.add(role);
          await tx.em.flush(); // the id, for the record
          this.audit.record(tx, {
            type: recordAs,
            userId: created.id,
            email,
            detail: { roles: roleNames.join(' ') || null },
          });
          return created;
        });
        return toAuthUser(user);
      } catch (error) {
        if (!(error instanceof UniqueConstraintViolationException)) throw error;
        if (isEmailConflict(error) || attempt >= 3) throw emailTaken(email);
      }
    }
  }
}

/**
 * A registration's write, done before its answer: the user (unconfirmed) and their roles, and the
 * record `user_registered`, in one transaction. For a taken address the very same statements run
 * and write no user: the insert gives way to the unique index, the roles' insert selects the new
 * row by its fresh hash and finds none, and the record is a failure `email_taken`. So neither the
 * answer nor the work before it tells a taken address from a free one. The new user's id, or null.
 */
export async function registerIfFree(storage: Storage, audit: AuditLog, input: CheckedUser): Promise<number | null> {
  const { email, passwordHash, roleNames } = input;
  const em = await storage.em();
  for (let attempt = 1; ; attempt++) {
    try {
      return await storage.transaction(em, async (tx) => {
        const roles = await ensureRoles(tx.em, roleNames);
        await tx.em.flush(); // the roles created where missing: the same whatever the address
        const now = new Date();
        const row = { email, passwordHash, isAdmin: false, emailConfirmedAt: null, createdAt: now, updatedAt: now };
        const inserted = await tx.em.createQueryBuilder(User).insert(row).onConflict('email').ignore().execute('run');
        // MikroORM 7 on SQLite asks for the id with `returning` (the row), 6 reads the last insert id.
        const id = inserted.insertId ?? (inserted.row as { id?: number } | undefined)?.id;
        const userId = inserted.affectedRows === 1 ? Number(id) : null;
        if (roles.length > 0) {
          const holes = roles.map(() => '?').join(', ');
          await tx.em.execute(
            `insert into service_auth_user_roles (user_id, role_id) select u.id, r.id from ` +
              `service_auth_users u, service_auth_roles r where u.email = ? and u.password_hash = ? and ` +
              `r.id in (${holes})`,
            [email, passwordHash, ...roles.map((role) => role.id)],
            'run',
          );
        }
        const detail = { roles: roleNames.join(' ') || null };
        audit.record(
          tx,
          userId === null
            ? { type: 'user_registered', outcome: 'failure', email, reason: 'email_taken', detail }
            : { type: 'user_registered', userId, email, detail },
        );
        return userId;
      });
    } catch (error) {
      // Two registrations creating one new role: the loser finds the winner's role next time.
      if (!(error instanceof UniqueConstraintViolationException) || attempt >= 3) throw error;
    }
  }
}

/** The named roles, created where missing (core's EntityManager: nothing of the SQL layer's is needed). */
export async function ensureRoles(em: CoreEntityManager, names: string[]): Promise<Role[]> {
  if (names.length === 0) return [];
  const existing = await em.find(Role, { name: { $in: names } });
  const byName = new Map(existing.map((role) => [role.name, role]));
  return names.map((name) => byName.get(name) ?? em.create(Role, { name }));
}

/** Whether a unique violation is the email's (SQLite and PostgreSQL both name the column or index). */
export function isEmailConflict(error: UniqueConstraintViolationException): boolean {
  return /email/i.test(error.message);
}

export function emailTaken(email: string): AuthError {
  return new AuthError('email_taken', `a user with email ${email} already exists`);
}
