import { AuthUser } from '../users/auth-user.js';

/** The values of the application's user attributes (`auth.defineUserAttributes`): strings, finite numbers, booleans. */
export type UserAttributeValues = Readonly<Record<string, string | number | boolean | null | undefined>>;

/** Who an ability or a policy is about: `req.user`, or any object service code has at hand. */
export interface Principal {
  readonly id: number;
  readonly email: string;
  readonly is_admin: boolean;
  readonly isAdmin: boolean;
  readonly roles: ReadonlySet<string>;
  /** The application's attributes of the user, once loaded (`auth.loadUserAttributes`), or given. */
  readonly attributes?: UserAttributeValues | undefined;
}

/** What `auth.abilityFor` and `auth.can` accept: `is_admin` or `isAdmin`, roles as an array or a set. */
export interface PrincipalLike {
  id: number;
  email: string;
  is_admin?: boolean;
  isAdmin?: boolean;
  roles?: Iterable<string>;
  /** The user's attribute values, as the resolver of `defineUserAttributes` would give them. */
  attributes?: Record<string, unknown>;
}

export function toPrincipal(user: PrincipalLike): Principal {
  if (user instanceof AuthUser) return user;
  if (!user || typeof user.id !== 'number' || typeof user.email !== 'string') {
    throw new TypeError('expected a user with a numeric id and an email (req.user, or { id, email, is_admin, roles })');
  }
  const isAdmin = Boolean(user.is_admin ?? user.isAdmin ?? false);
  return Object.freeze({
    id: user.id,
    email: user.email,
    is_admin: isAdmin,
    isAdmin,
    // Sorted, as a stored user's are: rules come in the roles' order, and abilities are cached by the set.
    roles: new Set([...(user.roles ?? [])].sort()) as ReadonlySet<string>,
    ...(user.attributes !== undefined && { attributes: checkAttributeValues(user.attributes, 'attributes') }),
  });
}

/** The principal with these attribute values (a new frozen object; `user` itself is left as it is). */
export function withAttributes(user: Principal, attributes: UserAttributeValues): Principal {
  return Object.freeze({
    id: user.id,
    email: user.email,
    is_admin: user.is_admin,
    isAdmin: user.is_admin,
    roles: user.roles,
    attributes,
  });
}

/**
 * A frozen copy of attribute values, or a TypeError naming `where` and the attribute (never its
 * value): only strings, finite numbers and booleans may fill a condition. An object could carry an
 * operator (`{ $ne: null }`) into a rule and a list means one thing to CASL and another in SQL;
 * null and undefined are "no value", which denies (placeholders.ts).
 */
export function checkAttributeValues(values: unknown, where: string): UserAttributeValues {
  if (values === null || typeof values !== 'object' || Array.isArray(values))
    throw new TypeError(`${where}: expected an object of attribute values`);
  const copy: Record<string, string | number | boolean | null | undefined> = {};
  for (const [name, value] of Object.entries(values)) {
    const scalar =
      typeof value === 'string' || typeof value === 'boolean' || (typeof value === 'number' && Number.isFinite(value));
    if (!scalar && value !== null && value !== undefined)
      throw new TypeError(
        `${where}: the attribute "${name}" must be a string, a finite number, a boolean, null or undefined`,
      );
    copy[name] = value as string | number | boolean | null | undefined;
  }
  return Object.freeze(copy);
}
