/**
 * The forms of what names an organization and what its members hold (docs/organizations.md): a name of
 * 1 to 100 characters, a slug of 2 to 48 of `a-z 0-9 -` (derived from the name when not given),
 * and organization role names, which must be known (`auth.defineOrgRole`).
 *
 * A slug of digits alone is refused, and never derived: wherever an organization is named by its
 * id or its slug (a URL, the CLI), a string of digits is its id.
 */
import { AuthError, ValidationError } from '../errors.js';

const SLUG = /^[a-z0-9-]{2,48}$/;
const DIGITS = /^[0-9]+$/;
/** A positive integer as `String(n)` writes it, of at most 15 digits (a safe integer). */
const CANONICAL_ID = /^[1-9][0-9]{0,14}$/;
const MAX_NAME = 100;
/** A derived slug is cut to this, leaving room for a numeric suffix when it is taken. */
const DERIVED_MAX = 40;
const ROLE_NAME = /^[A-Za-z0-9_.:-]{1,64}$/;

/** The name, trimmed, or a 400 `bad_request` for the field `name`. */
export function validOrgName(name: unknown): string {
  const trimmed = typeof name === 'string' ? name.trim() : '';
  const length = Array.from(trimmed).length;
  // eslint-disable-next-line no-control-regex
  if (length < 1 || length > MAX_NAME || /[\u0000-\u001f\u007f-\u009f]/.test(trimmed)) {
    throw new ValidationError([
      { field: 'name', message: `a name is 1 to ${MAX_NAME} characters, without control characters` },
    ]);
  }
  return trimmed;
}

/** The slug as given, or a 400 `bad_request` for the field `slug`. */
export function validSlug(slug: unknown): string {
  if (typeof slug !== 'string' || !SLUG.test(slug) || DIGITS.test(slug)) {
    throw new ValidationError([
      { field: 'slug', message: `${JSON.stringify(slug)} is not a slug (2 to 48 of a-z 0-9 -, not digits alone)` },
    ]);
  }
  return slug;
}

/**
 * Whether `ref`, a string, names an organization by its id rather than its slug: an id written as
 * it is written everywhere (`7`), never another spelling of it (`007`, `+7`, `7.0`, ` 7`), so that
 * one organization has one URL. Any other string of digits names nothing (no slug is digits alone).
 */
export function isIdString(ref: string): boolean {
  return CANONICAL_ID.test(ref);
}

/**
 * Whether a string names an organization as a URL does (`/orgs/7`, `/orgs/acme`): a canonical id or
 * a well-formed slug, nothing else (no ` 7`, `7 `, `007`, `7.0`). The one parser of an organization
 * named by the client, in a URL or a request body alike.
 */
export function isOrgRef(ref: string): boolean {
  return isIdString(ref) || (SLUG.test(ref) && !DIGITS.test(ref));
}

/** A slug made from a name: lower case, accents dropped, anything else a hyphen; `org-…` if too short or digits alone. */
export function slugFrom(name: string): string {
  const base = name
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '')
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '')
    .slice(0, DERIVED_MAX)
    .replace(/-+$/, '');
  return base.length < 2 || DIGITS.test(base) ? `org${base ? `-${base}` : ''}`.slice(0, DERIVED_MAX) : base;
}

/**
 * Organization role names: at least one, each of the form role names have (else 400
 * `bad_request` for the field `roles`) and known (else 422 `unknown_role` naming them). Sorted,
 * each once.
 */
export function validOrgRoles(roles: unknown, known: (name: string) => boolean): string[] {
  if (
    !Array.isArray(roles) ||
    roles.length === 0 ||
    !roles.every((role) => typeof role === 'string' && ROLE_NAME.test(role))
  ) {
    throw new ValidationError([
      { field: 'roles', message: 'at least one organization role name (each 1 to 64 of A-Z a-z 0-9 _ . : -)' },
    ]);
  }
  const names = [...new Set(roles as string[])].sort();
  const unknown = names.filter((name) => !known(name));
  if (unknown.length > 0) {
    throw new AuthError(
      'unknown_role',
      `no organization role named ${unknown.map((name) => JSON.stringify(name)).join(', ')}`,
    );
  }
  return names;
}
