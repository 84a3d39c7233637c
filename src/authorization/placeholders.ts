/**
 * `${user.id}`, `${user.email}` and `${user.is_admin}` in role rules. A value that is exactly one
 * placeholder keeps the field's type (`{ authorId: '${user.id}' }` compares with the number 7,
 * not "7"); placeholders inside longer strings are replaced as text.
 */
import type { Principal } from './principal.js';

export const PLACEHOLDER = /\$\{user\.([A-Za-z_]+)\}/g;
const WHOLE_PLACEHOLDER = /^\$\{user\.([A-Za-z_]+)\}$/;

export const USER_FIELDS = {
  id: (user: Principal) => user.id,
  email: (user: Principal) => user.email,
  is_admin: (user: Principal) => user.is_admin,
} as const;
type UserField = keyof typeof USER_FIELDS;

export function hasPlaceholders(value: unknown): boolean {
  return JSON.stringify(value).includes('${user.');
}

/** A copy of `value` with the user's fields in place of the placeholders. */
export function interpolate(value: unknown, user: Principal): unknown {
  if (typeof value === 'string') {
    const whole = WHOLE_PLACEHOLDER.exec(value);
    if (whole) return USER_FIELDS[whole[1] as UserField](user);
    return value.replace(PLACEHOLDER, (_match, field: string) => String(USER_FIELDS[field as UserField](user)));
  }
  if (Array.isArray(value)) return value.map((item) => interpolate(item, user));
  if (value !== null && typeof value === 'object') {
    return Object.fromEntries(Object.entries(value).map(([key, item]) => [key, interpolate(item, user)]));
  }
  return value;
}
