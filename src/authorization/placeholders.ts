/**
 * `${user.id}`, `${user.email}` and `${user.is_admin}` in role rules, the application's own user
 * attributes (`${user.team}`, declared with `auth.defineUserAttributes`: user-attributes.ts), and
 * `${org.id}` and `${org.slug}` in organization roles' rules. A value that is exactly one
 * placeholder keeps the field's type (`{ authorId: '${user.id}' }` compares with the number 7, not
 * "7"); placeholders inside longer strings are replaced as text.
 *
 * An attribute the user has no value for (the resolver left it out, or gave null) fills nothing:
 * interpolating a rule that names it throws MissingAttribute, and the role's compiler (role-compilation.ts)
 * drops a granting rule and makes an inverted one refuse unconditionally. A condition on a missing
 * value never matches everything.
 */
import type { Principal } from './principal.js';

/** Any `${user.…}` or `${org.…}`: group 1 the object, group 2 the field. */
export const PLACEHOLDER = /\$\{(user|org)\.([A-Za-z_]+)\}/g;
const WHOLE_PLACEHOLDER = /^\$\{(user|org)\.([A-Za-z_]+)\}$/;
/** Anything written as a placeholder, `${member.team}` included. */
const ANY_PLACEHOLDER = /\$\{([^}]*)\}/g;

/**
 * What is wrong with the first placeholder in `value` outside `${user.*}` and `${org.*}`
 * (`${member.team}`, `${team}`): it would otherwise be compared as a literal string.
 */
export function foreignPlaceholderProblem(value: unknown): string | undefined {
  for (const match of JSON.stringify(value ?? null).matchAll(ANY_PLACEHOLDER)) {
    if (!/^(user|org)\.[A-Za-z_]+$/.test(match[1]!)) {
      const known = "${user.…} (the user's fields and attributes) and ${org.…} (organization roles)";
      return `unknown placeholder ${match[0]}: placeholders are ${known}`;
    }
  }
  return undefined;
}

/** The organization an organization role's rules are interpolated for. */
export interface OrgRef {
  readonly id: number;
  readonly slug: string;
}

/** What placeholders are filled in from: the user (with its attributes), and the organization for an organization role. */
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

/** A rule names an attribute the user has no value for: the rule cannot be filled in. */
export class MissingAttribute extends Error {
  override name = 'MissingAttribute';
  constructor(readonly attribute: string) {
    super(`the user has no value for \${user.${attribute}}`);
  }
}

/** Whether `${user.<field>}` names one of the application's attributes rather than the package's fields. */
export function isAttribute(field: string): boolean {
  return !Object.hasOwn(USER_FIELDS, field);
}

/**
 * What is wrong with a placeholder, or nothing: `orgAllowed` in organization roles only;
 * `attributes` the user attribute names declared so far.
 */
export function placeholderProblem(
  object: string,
  field: string,
  orgAllowed: boolean,
  attributes: ReadonlySet<string> = new Set(),
): string | undefined {
  if (object === 'user') {
    if (!isAttribute(field) || attributes.has(field)) return undefined;
    const declared = [...attributes].map((name) => `, \${user.${name}}`).join('');
    return (
      `unknown placeholder \${user.${field}}; use \${user.id}, \${user.email}, ` +
      `\${user.is_admin}${declared} or declare it first with defineUserAttributes(["${field}"], ` +
      `…) (or "userAttributes" in a policy file)`
    );
  }
  if (!orgAllowed)
    return `\${org.${field}} is for organization roles only (defineOrgRole, or "orgRoles" in a policy file)`;
  return field in ORG_FIELDS ? undefined : `unknown placeholder \${org.${field}}; use \${org.id} or \${org.slug}`;
}

export function hasPlaceholders(value: unknown): boolean {
  const text = JSON.stringify(value);
  return text.includes('${user.') || text.includes('${org.');
}

/** The attributes (not the package's own fields) that `${user.*}` placeholders in `value` name. */
export function attributesNamed(value: unknown): string[] {
  const names = [...JSON.stringify(value ?? null).matchAll(PLACEHOLDER)]
    .filter((match) => match[1] === 'user' && isAttribute(match[2]!))
    .map((match) => match[2]!);
  return [...new Set(names)];
}

function valueOf(object: string, field: string, values: PlaceholderValues): unknown {
  if (object === 'user') {
    if (!isAttribute(field)) return USER_FIELDS[field as keyof typeof USER_FIELDS](values.user);
    const { attributes } = values.user;
    // AbilityFactory loads or refuses before it gets here (it knows which roles name attributes).
    if (!attributes)
      throw new TypeError(
        `\${user.${field}}: the user's attributes are not loaded; await auth.loadUserAttributes(user) first`,
      );
    const value = Object.hasOwn(attributes, field) ? attributes[field] : undefined;
    if (value === undefined || value === null) throw new MissingAttribute(field);
    return value;
  }
  // The rule checks refuse `${org.*}` outside organization roles, which always have an organization.
  if (!values.org) throw new TypeError(`\${org.${field}} outside an organization`);
  return ORG_FIELDS[field as keyof typeof ORG_FIELDS](values.org);
}

/**
 * A copy of `value` with the user's (and the organization's) fields in place of the placeholders;
 * MissingAttribute for an attribute without a value.
 */
export function interpolate(value: unknown, values: PlaceholderValues): unknown {
  if (typeof value === 'string') {
    const whole = WHOLE_PLACEHOLDER.exec(value);
    if (whole) return valueOf(whole[1]!, whole[2]!, values);
    return value.replace(PLACEHOLDER, (_match, object: string, field: string) =>
      String(valueOf(object, field, values)),
    );
  }
  if (Array.isArray(value)) return value.map((item) => interpolate(item, values));
  if (value !== null && typeof value === 'object') {
    return Object.fromEntries(Object.entries(value).map(([key, item]) => [key, interpolate(item, values)]));
  }
  return value;
}
