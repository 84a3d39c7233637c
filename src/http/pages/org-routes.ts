/**
 * The organization pages for people with browsers (`/orgs`, `/orgs/<org>`), and their forms'
 * posts. Creating and inviting post to the JSON API's paths (`/api/orgs`,
 * `/api/orgs/<org>/invitations`): a post that is not a browser's form goes on to the API. HTML
 * forms cannot send PATCH or DELETE, so changing roles, removing (leaving) and revoking post to
 * routes of the pages' own, which take only a browser's form. Each answers with a redirect saying
 * what was done; a refusal shows the page again with the problem beside its field or above the
 * forms. The invitation link's page: invitation-routes.ts.
 */
import type { Request, Response } from 'express';
import type { AuthConfig } from '../../config/config.js';
import { idParameter, type OrgActions } from '../actions/orgs.js';
import { invite } from '../api/invitations.js';
import { IN_ORG, IN_ORG_FORM, INVITATION_ID, ORG, TOKENS_NOTE, USER_ID } from '../api/org-params.js';
import { createOrg } from '../api/orgs.js';
import { endpoint, type Endpoint } from '../endpoints/endpoint.js';
import type { GuardKit } from '../endpoints/guard-kit.js';
import { ABILITY, EVERY_SCOPE, tokenFailuresNote } from '../endpoints/guards.js';
import { EndpointRouter } from '../endpoints/mount.js';
import { queryParameter, toLoginPage } from '../openapi/operations.js';
import { page, redirect } from '../openapi/responses.js';
import { textField } from '../requests/input.js';
import { orgSchemas } from '../schemas/orgs.js';
import { parseBody } from '../schemas/parse.js';
import { formRoute, type FormRoute } from './forms.js';
import { formOnly } from './page-endpoints.js';
import type { OrgPageLocals, OrgsPageLocals } from './org-pages.js';
import { noticeOf, orgNotice, orgRefusal, rolesSent } from './org-refusals.js';
import { sendPage } from './render.js';
import type { PageTexts } from './texts.js';

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

export interface OrgPageDeps {
  config: AuthConfig;
  orgs: OrgActions;
  pluggable: { readonly texts: PageTexts };
}

export function orgPages(deps: OrgPageDeps, kit: GuardKit): EndpointRouter {
  const { config, orgs, pluggable } = deps;
  const prefix = config.urlPrefix;
  const orgPath = (req: Request) => `${prefix}/orgs/${encodeURIComponent(req.org!.slug)}`;

  const showOrgs = async (req: Request, res: Response, status: number, extra: Partial<Pick<OrgsPageLocals, 'notice' | 'errors' | 'values'>> = {}): Promise<void> => {
    await sendPage(req, res, status, 'orgs', {
      prefix,
      texts: pluggable.texts,
      email: req.user!.email,
      orgs: await orgs.mine(req),
      mayCreate: orgs.mayCreate(req),
      notice: null,
      errors: null,
      values: null,
      ...extra,
    });
  };

  const showOrg = async (req: Request, res: Response, status: number, extra: Partial<Pick<OrgPageLocals, 'notice' | 'errors' | 'values'>> = {}): Promise<void> => {
    const org = orgs.show(req);
    const self = req.user!.id;
    const assignable = orgs.assignable(req);
    const members = req.ability!.can('read', 'Membership')
      ? (await orgs.members(req)).map((member) => ({
          ...member,
          self: member.user_id === self,
          mayChangeRoles: assignable.length > 0 && orgs.may(req, 'update', 'Membership', member, 'roles'),
          mayRemove: member.user_id !== self && orgs.may(req, 'delete', 'Membership', member) && member.roles.every((role) => assignable.includes(role)),
        }))
      : null;
    const invitations = req.ability!.can('read', 'Invitation')
      ? (await orgs.invitations(req)).map((invitation) => ({ ...invitation, mayRevoke: orgs.may(req, 'delete', 'Invitation', invitation) }))
      : null;
    await sendPage(req, res, status, 'org', {
      prefix,
      texts: pluggable.texts,
      email: req.user!.email,
      org,
      roles: req.membership?.roles ?? [],
      members,
      assignable,
      invitations,
      mayInvite: assignable.length > 0 && req.ability!.can('create', 'Invitation'),
      notice: null,
      errors: null,
      values: null,
      ...extra,
    });
  };

  const orgsForm: FormRoute = {
    fields: ['name', 'slug'],
    page: () => `${prefix}/orgs`,
    async showAgain(req, res, error) {
      const closed = error.code === 'forbidden' ? { errors: null, notice: { kind: 'error' as const, text: pluggable.texts.orgs.creationClosed } } : undefined;
      const refusal = closed ?? orgRefusal(error, pluggable.texts);
      if (!refusal || !req.user) return false;
      await showOrgs(req, res, error.status, { ...refusal, values: { name: textField(req, 'name'), slug: textField(req, 'slug') } });
      return true;
    },
  };

  // The forms of an organization's page: a refusal shows the page again, if the caller may still see it.
  const orgForm: FormRoute = {
    fields: ['email', 'roles'],
    page: (req) => (req.org ? orgPath(req) : `${prefix}/orgs`),
    async showAgain(req, res, error) {
      const refusal = orgRefusal(error, pluggable.texts);
      // Not when the page itself would be refused (not in it, or no `read` on it): that gets a page of its own.
      if (!refusal || !req.user || !req.org || (error.code === 'not_found' && !req.membership) || !orgs.may(req, 'read', 'Organization', { ...req.org })) return false;
      const inviting = req.path.endsWith('/invitations');
      const values = inviting ? { email: textField(req, 'email'), roles: rolesSent(req) } : null;
      await showOrg(req, res, error.status, inviting ? { ...refusal, values } : { notice: refusal.notice ?? noticeOf(refusal.errors), errors: null });
      return true;
    },
  };

  // The texts are read with each request: an application may replace them at any time.
  const left = () => ({ notice: { kind: 'info' as const, text: pluggable.texts.orgs.left } });
  const member = 'member of this organization';
  return new EndpointRouter(kit)
    .on(orgsPage, (req, res) => showOrgs(req, res, 200, req.query['left'] === '1' ? left() : {}))
    .form(createOrg, formRoute(orgsForm), async (req, res) => {
      const org = await orgs.create(req, parseBody(orgSchemas.createForm, req));
      res.redirect(303, `${prefix}/orgs/${encodeURIComponent(org.slug)}`);
    })
    .on(orgPage, (req, res) => showOrg(req, res, 200, { notice: orgNotice(req, pluggable.texts) }), { form: formRoute(orgForm) })
    .on(
      setMemberRolesForm,
      async (req, res) => {
        await orgs.setRoles(req, idParameter(req, 'user_id', member), parseBody(orgSchemas.memberRolesForm, req).roles);
        res.redirect(303, `${orgPath(req)}?done=roles`);
      },
      { form: formRoute(orgForm) },
    )
    .on(
      removeMemberForm,
      async (req, res) => {
        const userId = idParameter(req, 'user_id', member);
        await orgs.removeMember(req, userId);
        res.redirect(303, userId === req.user!.id ? `${prefix}/orgs?left=1` : `${orgPath(req)}?done=removed`);
      },
      { form: formRoute(orgForm) },
    )
    .form(invite, formRoute(orgForm), async (req, res) => {
      await orgs.invite(req, parseBody(orgSchemas.inviteForm, req));
      res.redirect(303, `${orgPath(req)}?done=invited`);
    })
    .on(
      revokeInvitationForm,
      async (req, res) => {
        await orgs.revoke(req, idParameter(req, 'id', 'invitation pending in this organization'));
        res.redirect(303, `${orgPath(req)}?done=revoked`);
      },
      { form: formRoute(orgForm) },
    );
}
