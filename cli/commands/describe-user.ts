import type { AuthUser } from '../../src/users/auth-user.js';

/**
 * One line about a user for a command's confirmation: `ada@example.com (id 1; admin; roles: a, b)`.
 * A disabled account or an unconfirmed address is named first: a role given to a user who cannot
 * log in grants nothing yet, and the operator should see why.
 */
export function describeUser(user: AuthUser): string {
  const facts = [`id ${user.id}`];
  if (user.disabled) facts.push('disabled');
  if (!user.email_confirmed) facts.push('email unconfirmed');
  if (user.is_admin) facts.push('admin');
  facts.push(user.roles.size ? `roles: ${[...user.roles].join(', ')}` : 'no roles');
  return `${user.email} (${facts.join('; ')})`;
}

/** The Status column of `list-users`: `active`, or `disabled`, `unconfirmed` or `disabled, unconfirmed`. */
export function userStatus(user: AuthUser): string {
  const blocks = [...(user.disabled ? ['disabled'] : []), ...(user.email_confirmed ? [] : ['unconfirmed'])];
  return blocks.length ? blocks.join(', ') : 'active';
}
