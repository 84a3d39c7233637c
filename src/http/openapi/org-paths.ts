/**
 * Organizations' JSON API (api/orgs.ts) under `/api/orgs` and `/api/invitations/accept`; some of
 * its paths also take the pages' forms (pages/org-routes.ts). The pages themselves are in
 * org-page-paths.ts.
 */
import type { OpenAPIV3_1 } from 'openapi-types';
import type { ErrorCode } from '../../errors.js';
import { MAX_PATH_SEGMENT } from '../requests/input.js';
import {
  acceptedInvitationResponse,
  invitationListResponse,
  invitationResponse,
  memberListResponse,
  memberResponse,
  myOrganizationListResponse,
  organizationResponse,
} from '../schemas/org-responses.js';
import { orgSchemas } from '../schemas/orgs.js';
import {
  countedHeaders,
  guardRefusals,
  limitNote,
  noStore,
  operation,
  SESSION_OR_TOKEN,
  toLoginPage,
  tokenFailuresNote,
  whenLimited,
  type DocumentContext,
  type Operation,
  type OperationSpec,
  type Paths,
} from './operations.js';
import { json, noContent, redirect } from './responses.js';

export const ORG: OpenAPIV3_1.ParameterObject = {
  name: 'org',
  in: 'path',
  required: true,
  description: 'The organization’s id or slug. One the caller is not a member of is a 404, as one that does not exist (unless a global rule lets them read it)',
  schema: { type: 'string', minLength: 1, maxLength: MAX_PATH_SEGMENT },
};

function integerParameter(name: string, description: string): OpenAPIV3_1.ParameterObject {
  return { name, in: 'path', required: true, description, schema: { type: 'integer', minimum: 1 } };
}

/** How bearer tokens fare in an organization's routes. */
export const TOKENS_NOTE = ' A bearer token needs every scope (one made without scopes: 403 `insufficient_scope` otherwise); one bound to another organization is 403 `forbidden`.';

export const USER_ID = integerParameter('user_id', 'The member’s user id (`user_id` in the member list)');
export const INVITATION_ID = integerParameter('id', 'The invitation’s id (`id` in the list)');

export function orgPaths(context: DocumentContext): Paths {
  const { config, schemas } = context;
  const prefix = config.urlPrefix;
  const failures = tokenFailuresNote(config);
  const tokens = TOKENS_NOTE;
  const ability = (what: string) => `Needs ${what} in the caller’s ability in the organization (403 \`forbidden\` otherwise).`;
  const assign = 'Each role granted or taken away needs `assign` on `OrgRole { name, org_id }` (403 `forbidden`): no one grants a role their own ability does not let them assign.';
  // `attributes_unavailable`: the ability needs the application's user attributes, and they could not be read.
  const inOrg = (unsafe: boolean, ...more: ErrorCode[]): ErrorCode[] => [...guardRefusals(config, unsafe), 'insufficient_scope', 'forbidden', 'not_found', 'attributes_unavailable', ...more];
  const api = (spec: Omit<OperationSpec, 'tags' | 'security'>): Operation =>
    operation(context, { ...spec, description: `${spec.description ?? ''}${failures}`, tags: ['organizations'], security: SESSION_OR_TOKEN });
  const toOrgPage = (what: string) => redirect(`A browser’s form: ${what}, to the organization’s page`, noStore());
  const inviteRate = limitNote(config, config.rateLimit.forgotPassword, 'invitations from one client address, at the rate of other mails asked for', 'SERVICE_AUTH_RATE_LIMIT_FORGOT_PASSWORD');
  const acceptRate = limitNote(config, config.rateLimit.resetPassword, 'invitation links used from one client address, at the rate of confirmations', 'SERVICE_AUTH_RATE_LIMIT_RESET_PASSWORD');

  return {
    '/api/orgs': {
      post: api({
        operationId: 'createOrg',
        summary: 'Create an organization',
        description: [
          'The caller becomes its member with SERVICE_AUTH_ORG_OWNER_ROLES.',
          `Who may: SERVICE_AUTH_ORG_CREATION is \`${config.orgs.creation}\` (\`anyone\`, or \`admins\`: global admins and holders of \`create Organization\`; 403 \`forbidden\` for others). A token bound to an organization may not.`,
          'The `/orgs` page’s form sends the same fields (an empty slug is derived from the name) and is answered with a 303 to the new organization’s page.',
          `A user owns (holds an owner role in) at most ${config.orgs.maxOwnedPerUser} organizations (SERVICE_AUTH_MAX_ORGS_PER_USER):`,
          '409 `too_many_organizations` past it, and nothing is created.',
          limitNote(config, config.rateLimit.orgCreation, 'organizations created per user, wherever from', 'SERVICE_AUTH_RATE_LIMIT_ORGS'),
        ].join(' '),
        body: { json: orgSchemas.create, form: orgSchemas.createForm },
        responses: {
          201: json(schemas, 'Created', organizationResponse, { ...noStore(), ...countedHeaders(config) }),
          303: toOrgPage('created'),
        },
        refusals: [
          ...guardRefusals(config, true),
          'insufficient_scope',
          'forbidden',
          'slug_taken',
          'too_many_organizations',
          'attributes_unavailable',
        ],
      }),
      get: api({
        operationId: 'listMyOrgs',
        summary: 'The caller’s organizations, with their roles in each',
        description: 'By slug. A token bound to an organization lists that one only.',
        responses: { 200: json(schemas, 'The organizations', myOrganizationListResponse, noStore()), 303: toLoginPage(config) },
        refusals: [...guardRefusals(config, false), 'insufficient_scope'],
      }),
    },
    '/api/orgs/{org}': {
      get: api({
        operationId: 'getOrg',
        summary: 'An organization',
        description: `${ability('`read` on it')}${tokens}`,
        parameters: [ORG],
        responses: { 200: json(schemas, 'The organization', organizationResponse, noStore()), 303: toLoginPage(config) },
        refusals: inOrg(false),
      }),
      patch: api({
        operationId: 'renameOrg',
        summary: 'Rename an organization',
        description: `${ability('`update` on it (the field `name`)')} The slug stays.${tokens}`,
        parameters: [ORG],
        body: { json: orgSchemas.rename },
        responses: { 200: json(schemas, 'Renamed', organizationResponse, noStore()) },
        refusals: inOrg(true),
      }),
      delete: api({
        operationId: 'deleteOrg',
        summary: 'Delete an organization',
        description: `${ability('`delete` on it')} Its memberships, invitations and the tokens bound to it go with it.${tokens}`,
        parameters: [ORG],
        responses: { 204: noContent('Deleted', noStore()) },
        refusals: inOrg(true),
      }),
    },
    '/api/orgs/{org}/members': {
      get: api({
        operationId: 'listMembers',
        summary: 'The members of an organization, with their roles',
        description: `${ability('`read Membership`')} Only the memberships it allows reading are listed.${tokens}`,
        parameters: [ORG],
        responses: { 200: json(schemas, 'The members', memberListResponse, noStore()), 303: toLoginPage(config) },
        refusals: inOrg(false),
      }),
    },
    '/api/orgs/{org}/members/{user_id}': {
      patch: api({
        operationId: 'setMemberRoles',
        summary: 'Change a member’s roles',
        description: `${ability('`update` on the membership (the field `roles`)')} ${assign} The organization keeps a member holding an owner role (409 \`last_owner\`).${tokens}`,
        parameters: [ORG, USER_ID],
        body: { json: orgSchemas.memberRoles },
        responses: { 200: json(schemas, 'The member with the new roles', memberResponse, noStore()) },
        refusals: inOrg(true, 'unknown_role', 'last_owner'),
      }),
      delete: api({
        operationId: 'removeMember',
        summary: 'Remove a member, or leave',
        description: `A member may always remove themselves (leave). Removing another needs \`delete\` on the membership and \`assign\` on each role they hold (403 \`forbidden\`). The last member holding an owner role stays (409 \`last_owner\`).${tokens}`,
        parameters: [ORG, USER_ID],
        responses: { 204: noContent('Removed', noStore()) },
        refusals: inOrg(true, 'last_owner'),
      }),
    },
    '/api/orgs/{org}/invitations': {
      post: api({
        operationId: 'invite',
        summary: 'Invite an address to join, with roles',
        description: [
          `${ability('`create Invitation`')} ${assign}`,
          `Mails a link to \`${prefix}/invitations/accept?token=…\`, valid SERVICE_AUTH_INVITATION_TTL, usable once; the token is never shown. An address that belongs to a member already is 409 \`already_member\`.`,
          'The organization page’s form sends the same fields (one `roles` field per role ticked) and is answered with a 303 to that page.',
          inviteRate,
          tokens,
        ].join(' '),
        parameters: [ORG],
        body: { json: orgSchemas.invite, form: orgSchemas.inviteForm },
        responses: { 201: json(schemas, 'Invited: the mail is on its way', invitationResponse, { ...noStore(), ...countedHeaders(config) }), 303: toOrgPage('invited') },
        refusals: inOrg(true, 'invalid_email', 'unknown_role', 'already_member', ...whenLimited(config)),
      }),
      get: api({
        operationId: 'listInvitations',
        summary: 'The pending invitations of an organization',
        description: `Not accepted, revoked or expired; oldest first; never their tokens. ${ability('`read Invitation`')}${tokens}`,
        parameters: [ORG],
        responses: { 200: json(schemas, 'The invitations', invitationListResponse, noStore()), 303: toLoginPage(config) },
        refusals: inOrg(false),
      }),
    },
    '/api/orgs/{org}/invitations/{id}': {
      delete: api({
        operationId: 'revokeInvitation',
        summary: 'Revoke a pending invitation',
        description: `Its link stops working. ${ability('`delete` on the invitation')} One that is not pending in this organization is a 404.${tokens}`,
        parameters: [ORG, INVITATION_ID],
        responses: { 204: noContent('Revoked', noStore()) },
        refusals: inOrg(true),
      }),
    },
    '/api/invitations/accept': {
      post: api({
        operationId: 'acceptInvitation',
        summary: 'Accept an invitation',
        description: [
          'The caller’s confirmed address must be the invitation’s (403 `invitation_email_mismatch` otherwise); an unknown, used, revoked or expired token is 400 `invalid_invitation`; an address that is a member already 409 `already_member`.',
          'A token with scopes, or bound to an organization, is 403.',
          `The invitation page’s button sends the same field and is answered with a 303 to the organization’s page.`,
          acceptRate,
        ].join(' '),
        body: { json: orgSchemas.accept },
        responses: { 200: json(schemas, 'Joined', acceptedInvitationResponse, { ...noStore(), ...countedHeaders(config) }), 303: toOrgPage('joined') },
        refusals: [...guardRefusals(config, true), 'insufficient_scope', 'forbidden', 'invalid_invitation', 'invitation_email_mismatch', 'already_member', ...whenLimited(config)],
      }),
    },

  };
}
