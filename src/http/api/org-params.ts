/** What the organizations' endpoints share: their path parameters, guards and notes (api/orgs.ts and the pages). */
import type { OpenAPIV3_1 } from 'openapi-types';
import type { Guard } from '../endpoints/endpoint.js';
import { EVERY_SCOPE, LOGIN, orgRequired } from '../endpoints/guards.js';
import { MAX_PATH_SEGMENT } from '../requests/input.js';

export const ORG: OpenAPIV3_1.ParameterObject = {
  name: 'org',
  in: 'path',
  required: true,
  description:
    'The organization’s id or slug. One the caller is not a member of is a 404, as one that does not exist' +
    ' (unless a global rule lets them read it)',
  schema: { type: 'string', minLength: 1, maxLength: MAX_PATH_SEGMENT },
};

function integerParameter(name: string, description: string): OpenAPIV3_1.ParameterObject {
  return { name, in: 'path', required: true, description, schema: { type: 'integer', minimum: 1 } };
}

export const USER_ID = integerParameter('user_id', 'The member’s user id (`user_id` in the member list)');
export const INVITATION_ID = integerParameter('id', 'The invitation’s id (`id` in the list)');

/** How bearer tokens fare in an organization's routes. */
export const TOKENS_NOTE =
  ' A bearer token needs every scope (one made without scopes: 403 `insufficient_scope` otherwise); one bound to' +
  ' another organization is 403 `forbidden`.';

/** A member of the organization in the path. Scopes first: a token with scopes learns nothing, not even which exist. */
export const IN_ORG: readonly Guard[] = [LOGIN, EVERY_SCOPE, orgRequired('org')];

/** The same, for a browser's form, which carries no bearer token to check the scopes of. */
export const IN_ORG_FORM: readonly Guard[] = [LOGIN, orgRequired('org')];

/** What an organization's operation needs in the caller's ability there. */
export function needs(what: string): string {
  return `Needs ${what} in the caller’s ability in the organization (403 \`forbidden\` otherwise).`;
}

export const ASSIGN =
  'Each role granted or taken away needs `assign` on `OrgRole { name, org_id }` (403 `forbidden`): no one grants' +
  ' a role their own ability does not let them assign.';
