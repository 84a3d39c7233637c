/**
 * The organization endpoints' request bodies, as JSON and as the pages' forms
 * send them. A malformed slug, name or role list is a 400 `bad_request` naming the field; whether a
 * slug is taken or a role is known stays with the organizations room, which answers with its own
 * codes (409 `slug_taken`, 422 `unknown_role`).
 */
import { z } from 'zod';
import { requiredText } from './accounts.js';

/** Lower-case letters, digits and hyphens, 2 to 48; not digits alone, which name an organization by its id. */
export const SLUG = /^(?![0-9]+$)[a-z0-9-]{2,48}$/;

/** Organization roles are named as global roles are (users/role-names.ts). */
const ROLE_NAME = /^[A-Za-z0-9_.:-]{1,64}$/;

// Counted in characters (code points) once trimmed, as auth.orgs counts them.
const name = requiredText
  .refine((text) => text.trim() !== '', 'must not be only spaces')
  .refine((text) => Array.from(text.trim()).length <= 100, 'must be at most 100 characters')
  // eslint-disable-next-line no-control-regex
  .refine((text) => !/[\u0000-\u001f\u007f-\u009f]/.test(text), 'must not contain control characters')
  .meta({
    maxLength: 100,
    description: 'What people call the organization: 1 to 100 characters, trimmed, without control characters',
  });

const slug = z
  .string({ error: 'must be a string' })
  .regex(SLUG, 'must be 2 to 48 of a-z 0-9 -, not digits alone')
  .meta({
    description:
      'Its name in URLs: 2 to 48 of a-z 0-9 -, not digits alone (those name an organization by ' +
      'its id), unique (409 slug_taken if taken); derived from the name when left out (with a ' +
      'numeric suffix if that one is taken)',
  });

const roleName = z
  .string({ error: 'must be a list of role names' })
  .regex(ROLE_NAME, 'each role is 1 to 64 of A-Z a-z 0-9 _ . : -');

const roles = z
  .array(roleName, { error: 'must be a list of role names' })
  .min(1, 'give at least one role')
  .max(32, 'at most 32 roles')
  .meta({
    description:
      'Organization role names (422 unknown_role for one the application does not define); each ' +
      'needs `assign` on `OrgRole` in the caller’s ability (403 forbidden)',
  });

/** A form's checkboxes: none sent, one (a string) or several (a list). */
const formRoles = z
  .union([z.string(), z.array(z.string())])
  .optional()
  .meta({ description: 'One field per role ticked' })
  .transform((value) => (value === undefined ? [] : typeof value === 'string' ? [value] : value))
  .pipe(roles);

const email = requiredText.meta({
  format: 'email',
  maxLength: 254,
  description:
    'The address to invite; compared as emails are everywhere (trimmed, lower-cased); 422 ' +
    'invalid_email if it is not an address',
});

const token = requiredText.meta({ description: 'The token of the mailed invitation link' });

export interface NewOrg {
  name: string;
  slug?: string | undefined;
}

export const orgSchemas = {
  create: z
    .object({ name, slug: slug.optional() })
    .meta({ id: 'NewOrganizationRequest' })
    .transform((body): NewOrg => ({ name: body.name.trim(), slug: body.slug })),
  /** The page's form: an empty slug field means "derive it". */
  createForm: z
    .object({
      name,
      slug: z
        .string()
        .optional()
        .meta({ description: 'Empty to derive it from the name' })
        .transform((text) => (text === undefined || text.trim() === '' ? undefined : text.trim()))
        .pipe(slug.optional()),
    })
    .meta({ id: 'NewOrganizationForm' })
    .transform((body): NewOrg => ({ name: body.name.trim(), slug: body.slug })),
  rename: z
    .object({ name })
    .meta({ id: 'RenameOrganizationRequest' })
    .transform((body) => ({ name: body.name.trim() })),
  memberRoles: z.object({ roles }).meta({ id: 'MemberRolesRequest' }),
  memberRolesForm: z.object({ roles: formRoles }).meta({ id: 'MemberRolesForm' }),
  invite: z.object({ email, roles }).meta({ id: 'NewInvitationRequest' }),
  inviteForm: z.object({ email, roles: formRoles }).meta({ id: 'NewInvitationForm' }),
  accept: z.object({ token }).meta({ id: 'AcceptInvitationRequest' }),
};
