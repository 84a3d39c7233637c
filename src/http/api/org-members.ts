/** `/api/orgs/{org}/members` for API clients: an organization's members, their roles, removing one or leaving. */
import { idParameter, type OrgActions } from '../actions/orgs.js';
import type { GuardKit } from '../endpoints/guard-kit.js';
import { EndpointRouter } from '../endpoints/mount.js';
import { noStore, toLoginPage } from '../openapi/operations.js';
import { json, noContent } from '../openapi/responses.js';
import { memberListResponse, memberResponse } from '../schemas/org-responses.js';
import { orgSchemas } from '../schemas/orgs.js';
import { parseBody } from '../schemas/parse.js';
import { orgEndpoint } from './org-endpoint.js';
import { ASSIGN, IN_ORG, needs, ORG, TOKENS_NOTE, USER_ID } from './org-params.js';

export const listMembers = orgEndpoint({
  method: 'get',
  path: '/api/orgs/:org/members',
  operationId: 'listMembers',
  summary: 'The members of an organization, with their roles',
  description: `${needs('`read Membership`')} Only the memberships it allows reading are listed.${TOKENS_NOTE}`,
  guards: IN_ORG,
  parameters: [ORG],
  responses: ({ config, schemas }) => ({
    200: json(schemas, 'The members', memberListResponse, noStore()),
    303: toLoginPage(config),
  }),
});

export const setMemberRoles = orgEndpoint({
  method: 'patch',
  path: '/api/orgs/:org/members/:user_id',
  operationId: 'setMemberRoles',
  summary: 'Change a member’s roles',
  description:
    `${needs('`update` on the membership (the field `roles`)')} ${ASSIGN} The organization keeps a member holding` +
    ` an owner role (409 \`last_owner\`).${TOKENS_NOTE}`,
  guards: IN_ORG,
  parameters: [ORG, USER_ID],
  body: { json: orgSchemas.memberRoles },
  responses: ({ schemas }) => ({ 200: json(schemas, 'The member with the new roles', memberResponse, noStore()) }),
  refusals: ['unknown_role', 'last_owner'],
});

export const removeMember = orgEndpoint({
  method: 'delete',
  path: '/api/orgs/:org/members/:user_id',
  operationId: 'removeMember',
  summary: 'Remove a member, or leave',
  description:
    'A member may always remove themselves (leave). Removing another needs `delete` on the membership and' +
    ' `assign` on each role they hold (403 `forbidden`). The last member holding an owner role stays (409' +
    ` \`last_owner\`).${TOKENS_NOTE}`,
  guards: IN_ORG,
  parameters: [ORG, USER_ID],
  responses: { 204: noContent('Removed', noStore()) },
  refusals: ['last_owner'],
});

export const MEMBER_ENDPOINTS = [listMembers, setMemberRoles, removeMember];

export function orgMembersApi(orgs: OrgActions, kit: GuardKit): EndpointRouter {
  const member = 'member of this organization';
  return new EndpointRouter(kit)
    .on(listMembers, async (req, res) => {
      res.json({ members: await orgs.members(req) });
    })
    .on(setMemberRoles, async (req, res) => {
      const userId = idParameter(req, 'user_id', member);
      res.json({ member: await orgs.setRoles(req, userId, parseBody(orgSchemas.memberRoles, req).roles) });
    })
    .on(removeMember, async (req, res) => {
      await orgs.removeMember(req, idParameter(req, 'user_id', member));
      res.status(204).end();
    });
}
