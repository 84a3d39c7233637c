/**
 * `/api/orgs` for API clients: creating, listing, reading, renaming and deleting organizations.
 * Every `{org}` route is behind `orgRequired` (a non-member's 404, `req.ability` in that
 * organization); what each may do is actions/orgs.ts's to check. Members: org-members.ts;
 * invitations: invitations.ts. The pages' forms post to some of these paths (pages/org-routes.ts).
 */
import type { OrgActions } from '../actions/orgs.js';
import type { GuardKit } from '../endpoints/guard-kit.js';
import { ABILITY, checked, EVERY_SCOPE, LOGIN } from '../endpoints/guards.js';
import { EndpointRouter } from '../endpoints/mount.js';
import { countedHeaders, limitNote, noStore, toLoginPage } from '../openapi/operations.js';
import { json, noContent } from '../openapi/responses.js';
import { myOrganizationListResponse, organizationResponse } from '../schemas/org-responses.js';
import { orgSchemas } from '../schemas/orgs.js';
import { parseBody } from '../schemas/parse.js';
import { orgEndpoint, toOrgPage } from './org-endpoint.js';
import { IN_ORG, needs, ORG, TOKENS_NOTE } from './org-params.js';

export const createOrg = orgEndpoint({
  method: 'post',
  path: '/api/orgs',
  operationId: 'createOrg',
  summary: 'Create an organization',
  description: ({ config }) =>
    [
      'The caller becomes its member with SERVICE_AUTH_ORG_OWNER_ROLES.',
      `Who may: SERVICE_AUTH_ORG_CREATION is \`${config.orgs.creation}\` (\`anyone\`, or \`admins\`: global admins`,
      'and holders of `create Organization`; 403 `forbidden` for others). A token bound to an organization may not.',
      'The `/orgs` page’s form sends the same fields (an empty slug is derived from the name) and is answered with',
      'a 303 to the new organization’s page.',
      `A user owns (holds an owner role in) at most ${config.orgs.maxOwnedPerUser} organizations`,
      '(SERVICE_AUTH_MAX_ORGS_PER_USER):',
      '409 `too_many_organizations` past it, and nothing is created.',
      limitNote(
        config,
        config.rateLimit.orgCreation,
        'organizations created per user, wherever from',
        'SERVICE_AUTH_RATE_LIMIT_ORGS',
      ),
    ].join(' '),
  guards: [ABILITY, EVERY_SCOPE, checked('createOrg')],
  body: { json: orgSchemas.create, form: orgSchemas.createForm },
  responses: ({ config, schemas }) => ({
    201: json(schemas, 'Created', organizationResponse, { ...noStore(), ...countedHeaders(config) }),
    303: toOrgPage('created'),
  }),
  refusals: ['forbidden', 'slug_taken', 'too_many_organizations'],
});

export const listMyOrgs = orgEndpoint({
  method: 'get',
  path: '/api/orgs',
  operationId: 'listMyOrgs',
  summary: 'The caller’s organizations, with their roles in each',
  description: 'By slug. A token bound to an organization lists that one only.',
  guards: [LOGIN, EVERY_SCOPE],
  responses: ({ config, schemas }) => ({
    200: json(schemas, 'The organizations', myOrganizationListResponse, noStore()),
    303: toLoginPage(config),
  }),
});

export const getOrg = orgEndpoint({
  method: 'get',
  path: '/api/orgs/:org',
  operationId: 'getOrg',
  summary: 'An organization',
  description: `${needs('`read` on it')}${TOKENS_NOTE}`,
  guards: IN_ORG,
  parameters: [ORG],
  responses: ({ config, schemas }) => ({
    200: json(schemas, 'The organization', organizationResponse, noStore()),
    303: toLoginPage(config),
  }),
});

export const renameOrg = orgEndpoint({
  method: 'patch',
  path: '/api/orgs/:org',
  operationId: 'renameOrg',
  summary: 'Rename an organization',
  description: `${needs('`update` on it (the field `name`)')} The slug stays.${TOKENS_NOTE}`,
  guards: IN_ORG,
  parameters: [ORG],
  body: { json: orgSchemas.rename },
  responses: ({ schemas }) => ({ 200: json(schemas, 'Renamed', organizationResponse, noStore()) }),
});

export const deleteOrg = orgEndpoint({
  method: 'delete',
  path: '/api/orgs/:org',
  operationId: 'deleteOrg',
  summary: 'Delete an organization',
  description:
    `${needs('`delete` on it')} Its memberships, invitations and the tokens bound to it go with it.` + TOKENS_NOTE,
  guards: IN_ORG,
  parameters: [ORG],
  responses: { 204: noContent('Deleted', noStore()) },
});

export const ORG_ENDPOINTS = [createOrg, listMyOrgs, getOrg, renameOrg, deleteOrg];

export function orgsApi(orgs: OrgActions, kit: GuardKit): EndpointRouter {
  return new EndpointRouter(kit)
    .on(createOrg, async (req, res) => {
      res.status(201).json({ org: await orgs.create(req, parseBody(orgSchemas.create, req)) });
    })
    .on(listMyOrgs, async (req, res) => {
      res.json({ orgs: await orgs.mine(req) });
    })
    .on(getOrg, (req, res) => {
      res.json({ org: orgs.show(req) });
    })
    .on(renameOrg, async (req, res) => {
      res.json({ org: await orgs.rename(req, parseBody(orgSchemas.rename, req).name) });
    })
    .on(deleteOrg, async (req, res) => {
      await orgs.remove(req);
      res.status(204).end();
    });
}
