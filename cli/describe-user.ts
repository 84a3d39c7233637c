import type { AuthUser } from '../src/users/auth-user.js';

/** One line about a user for a command's confirmation: `ada@example.com (id 1; admin; roles: a, b)`. */
export function describeUser(user: AuthUser): string {
  const facts = [`id ${user.id}`];
  if (user.is_admin) facts.push('admin');
  facts.push(user.roles.size ? `roles: ${[...user.roles].join(', ')}` : 'no roles');
  return `${user.email} (${facts.join('; ')})`;
}
