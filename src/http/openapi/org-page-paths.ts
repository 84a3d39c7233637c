/**
 * The organization pages (pages/org-routes.ts): `/orgs`, `/orgs/{org}`, the invitation link's
 * page, and the routes the organization page's buttons post to, which take only a browser's form
 * because forms cannot send PATCH or DELETE. Their other forms post to the JSON API's paths
 * (org-paths.ts).
 */
import type { OpenAPIV3_1 } from 'openapi-types';
import type { ErrorCode } from '../../errors.js';
import { orgSchemas } from '../schemas/orgs.js';
import { INVITATION_ID, ORG, TOKENS_NOTE, USER_ID } from './org-paths.js';
import {
  guardRefusals,
  operation,
  PUBLIC,
  queryParameter,
  SESSION_OR_TOKEN,
  toLoginPage,
  tokenFailuresNote,
  type DocumentContext,
  type Operation,
  type OperationSpec,
  type Paths,
} from './operations.js';
import { page, redirect } from './responses.js';

const FORMS_ONLY = 'It takes only a browser’s form (urlencoded, preferring HTML, without Authorization): anything else is the 404 of paths nobody serves.';

export function orgPagePaths(context: DocumentContext): Paths {
  const { config, schemas } = context;
  const prefix = config.urlPrefix;
  const failures = tokenFailuresNote(config);
  const tokens = TOKENS_NOTE;
  // `attributes_unavailable`: the ability needs the application's user attributes, and they could not be read.
  const inOrg: ErrorCode[] = [...guardRefusals(config, false), 'attributes_unavailable'];
  const toOrgPage = (what: string) => redirect(`${what}: to the organization’s page`);
  const formOnly = (spec: Omit<OperationSpec, 'tags' | 'security'>, body: OpenAPIV3_1.SchemaObject | OpenAPIV3_1.ReferenceObject | undefined): Operation => {
    const described = operation(context, { ...spec, description: `${spec.description ?? ''} ${FORMS_ONLY}${failures}`, tags: ['pages'], security: [{ session: [] }] });
    if (body) described.requestBody = { required: true, content: { 'application/x-www-form-urlencoded': { schema: body } } };
    return described;
  };

  return {
    '/orgs': {
      get: operation(context, {
        operationId: 'orgsPage',
        summary: 'The organizations page: the caller’s organizations with their roles, and a form to create one',
        description: `Its form posts to \`POST /api/orgs\`. With a bearer token, one made without scopes.${failures}`,
        tags: ['pages'],
        security: SESSION_OR_TOKEN,
        parameters: [queryParameter('left', '`1`: says the caller left an organization')],
        responses: { 200: page('The page'), 303: toLoginPage(config) },
        refusals: [...guardRefusals(config, false), 'insufficient_scope', 'attributes_unavailable'],
      }),
    },
    '/orgs/{org}': {
      get: operation(context, {
        operationId: 'orgPage',
        summary: 'An organization’s page: its members and their roles, the pending invitations, a form to invite, and leaving',
        description: `What the caller’s ability there allows: changing roles (\`POST /orgs/{org}/members/{user_id}/roles\`), removing (\`…/remove\`), revoking (\`POST /orgs/{org}/invitations/{id}/revoke\`), inviting (\`POST /api/orgs/{org}/invitations\`). Needs \`read\` on the organization.${tokens}${failures}`,
        tags: ['pages'],
        security: SESSION_OR_TOKEN,
        parameters: [ORG, queryParameter('done', '`roles`, `removed`, `invited`, `revoked` or `joined`: says what was just done')],
        responses: { 200: page('The page'), 303: toLoginPage(config) },
        refusals: [...inOrg, 'insufficient_scope', 'forbidden', 'not_found'],
      }),
    },
    '/orgs/{org}/members/{user_id}/roles': {
      post: formOnly(
        {
          operationId: 'setMemberRolesForm',
          summary: 'Change a member’s roles (the organization page’s form)',
          description: `As \`PATCH /api/orgs/{org}/members/{user_id}\`, which a form cannot send: one \`roles\` field per role ticked. Answered with a 303 to the organization’s page; a refusal shows that page with the problem.`,
          parameters: [ORG, USER_ID],
          responses: { 303: toOrgPage('Saved') },
          refusals: [...guardRefusals(config, true), 'forbidden', 'not_found', 'unknown_role', 'last_owner', 'attributes_unavailable'],
        },
        schemas.of(orgSchemas.memberRolesForm, 'input'),
      ),
    },
    '/orgs/{org}/members/{user_id}/remove': {
      post: formOnly(
        {
          operationId: 'removeMemberForm',
          summary: 'Remove a member, or leave (the organization page’s buttons)',
          description: `As \`DELETE /api/orgs/{org}/members/{user_id}\`, which a form cannot send. Answered with a 303 to the organization’s page, or, for the caller themselves, to \`${prefix}/orgs?left=1\`.`,
          parameters: [ORG, USER_ID],
          responses: { 303: redirect('Removed: to the organization’s page, or the organizations page after leaving') },
          refusals: [...guardRefusals(config, true), 'forbidden', 'not_found', 'last_owner', 'attributes_unavailable'],
        },
        undefined,
      ),
    },
    '/orgs/{org}/invitations/{id}/revoke': {
      post: formOnly(
        {
          operationId: 'revokeInvitationForm',
          summary: 'Revoke an invitation (the organization page’s button)',
          description: `As \`DELETE /api/orgs/{org}/invitations/{id}\`, which a form cannot send. Answered with a 303 to the organization’s page.`,
          parameters: [ORG, INVITATION_ID],
          responses: { 303: toOrgPage('Revoked') },
          refusals: [...guardRefusals(config, true), 'forbidden', 'not_found', 'attributes_unavailable'],
        },
        undefined,
      ),
    },
    '/invitations/accept': {
      get: operation(context, {
        operationId: 'invitationPage',
        summary: 'The page of the mailed invitation link',
        description:
          'Opening it changes nothing (mail scanners follow links). Signed in with the invited address, confirmed: what the invitation is for, and a button whose form posts the token to `POST /api/invitations/accept`. Otherwise it says to log in or register with that address and come back, or that the link cannot be used.',
        tags: ['pages'],
        security: PUBLIC,
        parameters: [queryParameter('token', 'The invitation link’s token')],
        responses: { 200: page('The page') },
        refusals: [],
      }),
    },
  };
}
