/**
 * `/api/orgs/{org}/invitations` and `/api/invitations/accept` for API clients: inviting an address
 * with roles, the pending invitations, revoking one, and accepting (pages/invitation-routes.ts
 * shows the link's page, whose button posts here).
 */
import { idParameter, type OrgActions } from '../actions/orgs.js';
import type { GuardKit } from '../endpoints/guard-kit.js';
import { checked, EVERY_SCOPE, LOGIN } from '../endpoints/guards.js';
import { EndpointRouter } from '../endpoints/mount.js';
import { countedHeaders, limitNote, noStore, toLoginPage } from '../openapi/operations.js';
import { json, noContent } from '../openapi/responses.js';
import { acceptedInvitationResponse, invitationListResponse, invitationResponse } from '../schemas/org-responses.js';
import { orgSchemas } from '../schemas/orgs.js';
import { parseBody } from '../schemas/parse.js';
import { orgEndpoint, toOrgPage } from './org-endpoint.js';
import { ASSIGN, IN_ORG, INVITATION_ID, needs, ORG, TOKENS_NOTE } from './org-params.js';

export const invite = orgEndpoint({
  method: 'post',
  path: '/api/orgs/:org/invitations',
  operationId: 'invite',
  summary: 'Invite an address to join, with roles',
  description: ({ config }) =>
    [
      `${needs('`create Invitation`')} ${ASSIGN}`,
      `Mails a link to \`${config.urlPrefix}/invitations/accept?token=…\`, valid SERVICE_AUTH_INVITATION_TTL, usable`,
      'once; the token is never shown. An address that belongs to a member already is 409 `already_member`.',
      'The organization page’s form sends the same fields (one `roles` field per role ticked) and is answered with',
      'a 303 to that page.',
      limitNote(
        config,
        config.rateLimit.forgotPassword,
        'invitations from one client address, at the rate of other mails asked for',
        'SERVICE_AUTH_RATE_LIMIT_FORGOT_PASSWORD',
      ),
      TOKENS_NOTE,
    ].join(' '),
  guards: [...IN_ORG, checked('invite')],
  parameters: [ORG],
  body: { json: orgSchemas.invite, form: orgSchemas.inviteForm },
  responses: ({ config, schemas }) => ({
    201: json(schemas, 'Invited: the mail is on its way', invitationResponse, {
      ...noStore(),
      ...countedHeaders(config),
    }),
    303: toOrgPage('invited'),
  }),
  refusals: ['invalid_email', 'unknown_role', 'already_member'],
});

export const listInvitations = orgEndpoint({
  method: 'get',
  path: '/api/orgs/:org/invitations',
  operationId: 'listInvitations',
  summary: 'The pending invitations of an organization',
  description:
    `Not accepted, revoked or expired; oldest first; never their tokens. ${needs('`read Invitation`')}` + TOKENS_NOTE,
  guards: IN_ORG,
  parameters: [ORG],
  responses: ({ config, schemas }) => ({
    200: json(schemas, 'The invitations', invitationListResponse, noStore()),
    303: toLoginPage(config),
  }),
});

export const revokeInvitation = orgEndpoint({
  method: 'delete',
  path: '/api/orgs/:org/invitations/:id',
  operationId: 'revokeInvitation',
  summary: 'Revoke a pending invitation',
  description:
    `Its link stops working. ${needs('`delete` on the invitation')} One that is not pending in this organization is` +
    ` a 404.${TOKENS_NOTE}`,
  guards: IN_ORG,
  parameters: [ORG, INVITATION_ID],
  responses: { 204: noContent('Revoked', noStore()) },
});

export const acceptInvitation = orgEndpoint({
  method: 'post',
  path: '/api/invitations/accept',
  operationId: 'acceptInvitation',
  summary: 'Accept an invitation',
  description: ({ config }) =>
    [
      'The caller’s confirmed address must be the invitation’s (403 `invitation_email_mismatch` otherwise); an',
      'unknown, used, revoked or expired token is 400 `invalid_invitation`; an address that is a member already 409',
      '`already_member`.',
      'A token with scopes, or bound to an organization, is 403.',
      `The invitation page’s button sends the same field and is answered with a 303 to the organization’s page.`,
      limitNote(
        config,
        config.rateLimit.resetPassword,
        'invitation links used from one client address, at the rate of confirmations',
        'SERVICE_AUTH_RATE_LIMIT_RESET_PASSWORD',
      ),
    ].join(' '),
  guards: [LOGIN, EVERY_SCOPE, checked('acceptInvitation')],
  body: { json: orgSchemas.accept },
  responses: ({ config, schemas }) => ({
    200: json(schemas, 'Joined', acceptedInvitationResponse, { ...noStore(), ...countedHeaders(config) }),
    303: toOrgPage('joined'),
  }),
  refusals: ['forbidden', 'invalid_invitation', 'invitation_email_mismatch', 'already_member'],
});

export const INVITATION_ENDPOINTS = [invite, listInvitations, revokeInvitation, acceptInvitation];

export function invitationsApi(orgs: OrgActions, kit: GuardKit): EndpointRouter {
  return new EndpointRouter(kit)
    .on(invite, async (req, res) => {
      res.status(201).json({ invitation: await orgs.invite(req, parseBody(orgSchemas.invite, req)) });
    })
    .on(listInvitations, async (req, res) => {
      res.json({ invitations: await orgs.invitations(req) });
    })
    .on(revokeInvitation, async (req, res) => {
      await orgs.revoke(req, idParameter(req, 'id', 'invitation pending in this organization'));
      res.status(204).end();
    })
    .on(acceptInvitation, async (req, res) => {
      res.json(await orgs.accept(req, parseBody(orgSchemas.accept, req).token));
    });
}
