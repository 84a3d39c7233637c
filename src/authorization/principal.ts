import { AuthUser } from '../users/auth-user.js';

/** Who an ability or a policy is about: `req.user`, or any object service code has at hand. */
export interface Principal {
  readonly id: number;
  readonly email: string;
  readonly is_admin: boolean;
  readonly isAdmin: boolean;
  readonly roles: ReadonlySet<string>;
}

/** What `auth.abilityFor` and `auth.can` accept: `is_admin` or `isAdmin`, roles as an array or a set. */
export interface PrincipalLike {
  id: number;
  email: string;
  is_admin?: boolean;
  isAdmin?: boolean;
  roles?: Iterable<string>;
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
  });
}
