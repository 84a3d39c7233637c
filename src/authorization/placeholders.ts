/**
 * `${user.id}`, `${user.email}` and `${user.is_admin}` in role rules, and `${org.id}` and
 * `${org.slug}` in organization roles' rules. A value that is exactly one placeholder keeps the
 * field's type (`{ authorId: '${user.id}' }` compares with the number 7, not "7"); placeholders
 * inside longer strings are replaced as text.
 */
import type { Principal } from './principal.js';

/** Any `${user.…}` or `${org.…}`: group 1 the object, group 2 the field. */
export const PLACEHOLDER = /\$\{(user|org)\.([A-Za-z_]+)\}/g;
const WHOLE_PLACEHOLDER = /^\$\{(user|org)\.([A-Za-z_]+)\}$/;

/** The organization an organization role's rules are interpolated for. */
export interface OrgRef {
  readonly id: number;
  readonly slug: string;
}

/** What placeholders are filled in from: the user, and the organization for an organization role. */
export interface PlaceholderValues {
  user: Principal;
  org?: OrgRef | undefined;
}

export const USER_FIELDS = {
  id: (user: Principal) => user.id,
  email: (user: Principal) => user.email,
  is_admin: (user: Principal) => user.is_admin,
} as const;

export const ORG_FIELDS = {
  id: (org: OrgRef) => org.id,
  slug: (org: OrgRef) => org.slug,
} as const;

/** What is wrong with a placeholder, or nothing: `orgAllowed` in organization roles only. */
export function placeholderProblem(object: string, field: string, orgAllowed: boolean): string | undefined {
  if (object === 'user') return field in USER_FIELDS ? undefined : `unknown placeholder \${user.${field}}; use \${user.id}, \${user.email} or \${user.is_admin}`;
  if (!orgAllowed) return `\${org.${field}} is for organization roles only (defineOrgRole, or "orgRoles" in a policy file)`;
  return field in ORG_FIELDS ? undefined : `unknown placeholder \${org.${field}}; use \${org.id} or \${org.slug}`;
}

export function hasPlaceholders(value: unknown): boolean {
  const text = JSON.stringify(value);
  return text.includes('${user.') || text.includes('${org.');
}

function valueOf(object: string, field: string, values: PlaceholderValues): unknown {
  if (object === 'user') return USER_FIELDS[field as keyof typeof USER_FIELDS](values.user);
  // The rule checks refuse `${org.*}` outside organization roles, which always have an organization.
  if (!values.org) throw new TypeError(`\${org.${field}} outside an organization`);
  return ORG_FIELDS[field as keyof typeof ORG_FIELDS](values.org);
}

/** A copy of `value` with the user's (and the organization's) fields in place of the placeholders. */
export function interpolate(value: unknown, values: PlaceholderValues): unknown {
  if (typeof value === 'string') {
    const whole = WHOLE_PLACEHOLDER.exec(value);
    if (whole) return valueOf(whole[1]!, whole[2]!, values);
    return value.replace(PLACEHOLDER, (_match, object: string, field: string) => String(valueOf(object, field, values)));
  }
  if (Array.isArray(value)) return value.map((item) => interpolate(item, values));
  if (value !== null && typeof value === 'object') {
    return Object.fromEntries(Object.entries(value).map(([key, item]) => [key, interpolate(item, values)]));
  }
  return value;
}
