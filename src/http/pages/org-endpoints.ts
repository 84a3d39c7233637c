/**
 * The organization pages' endpoints as declared (`/orgs`, `/orgs/<org>`, and the buttons' own
 * routes): org-routes.ts mounts them with their handlers; the endpoint table walks them for the
 * OpenAPI document.
 */
import { IN_ORG, IN_ORG_FORM, INVITATION_ID, ORG, TOKENS_NOTE, USER_ID } from '../api/org-params.js';
import { endpoint, type Endpoint } from '../endpoints/endpoint.js';
import { ABILITY, EVERY_SCOPE, tokenFailuresNote } from '../endpoints/guards.js';
import { queryParameter, toLoginPage } from '../openapi/operations.js';
import { page, redirect } from '../openapi/responses.js';
import { orgSchemas } from '../schemas/orgs.js';
import { formOnly } from './page-endpoints.js';

export const orgsPage = endpoint({
  method: 'get',
  path: '/orgs',
  operationId: 'orgsPage',
  summary: 'The organizations page: the caller’s organizations with their roles, and a form to create one',
  description: ({ config }) =>
    `Its form posts to \`POST /api/orgs\`. With a bearer token, one made without scopes.${tokenFailuresNote(config)}`,
  tags: ['pages'],
  guards: [ABILITY, EVERY_SCOPE],
  parameters: [queryParameter('left', '`1`: says the caller left an organization')],
  responses: ({ config }) => ({ 200: page('The page'), 303: toLoginPage(config) }),
});

export const orgPage = endpoint({
  method: 'get',
  path: '/orgs/:org',
  operationId: 'orgPage',
  summary:
    'An organization’s page: its members and their roles, the pending invitations, a form to invite, and leaving',
  description: ({ config }) =>
    [
      'What the caller’s ability there allows: changing roles (`POST /orgs/{org}/members/{user_id}/roles`),',
      'removing (`…/remove`), revoking (`POST /orgs/{org}/invitations/{id}/revoke`), inviting',
      `(\`POST /api/orgs/{org}/invitations\`). Needs \`read\` on the organization.${TOKENS_NOTE}`,
    ].join(' ') + tokenFailuresNote(config),
  tags: ['pages'],
  guards: IN_ORG,
  parameters: [
    ORG,
    queryParameter('done', '`roles`, `removed`, `invited`, `revoked` or `joined`: says what was just done'),
  ],
  responses: ({ config }) => ({ 200: page('The page'), 303: toLoginPage(config) }),
});

/** A route of the organization page's own that a button posts to: a redirect, or the page again with the problem. */
const orgButton = (spec: Parameters<typeof formOnly>[0]): Endpoint => formOnly(spec, IN_ORG_FORM);

export const setMemberRolesForm = orgButton({
  path: '/orgs/:org/members/:user_id/roles',
  operationId: 'setMemberRolesForm',
  summary: 'Change a member’s roles (the organization page’s form)',
  description:
    'As `PATCH /api/orgs/{org}/members/{user_id}`, which a form cannot send: one `roles` field per role ticked.' +
    ' Answered with a 303 to the organization’s page; a refusal shows that page with the problem.',
  parameters: [ORG, USER_ID],
  formBody: ({ schemas }) => schemas.of(orgSchemas.memberRolesForm, 'input'),
  responses: { 303: redirect('Saved: to the organization’s page') },
  refusals: ['unknown_role', 'last_owner'],
});

export const removeMemberForm = orgButton({
  path: '/orgs/:org/members/:user_id/remove',
  operationId: 'removeMemberForm',
  summary: 'Remove a member, or leave (the organization page’s buttons)',
  description: ({ config }) =>
    'As `DELETE /api/orgs/{org}/members/{user_id}`, which a form cannot send. Answered with a 303 to the' +
    ` organization’s page, or, for the caller themselves, to \`${config.urlPrefix}/orgs?left=1\`.`,
  parameters: [ORG, USER_ID],
  responses: { 303: redirect('Removed: to the organization’s page, or the organizations page after leaving') },
  refusals: ['last_owner'],
});

export const revokeInvitationForm = orgButton({
  path: '/orgs/:org/invitations/:id/revoke',
  operationId: 'revokeInvitationForm',
  summary: 'Revoke an invitation (the organization page’s button)',
  description:
    'As `DELETE /api/orgs/{org}/invitations/{id}`, which a form cannot send. Answered with a 303 to the' +
    ' organization’s page.',
  parameters: [ORG, INVITATION_ID],
  responses: { 303: redirect('Revoked: to the organization’s page') },
});

export const ORG_PAGES = [orgsPage, orgPage, setMemberRolesForm, removeMemberForm, revokeInvitationForm];
