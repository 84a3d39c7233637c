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
import { createOrg } from '../api/orgs.js';
import type { GuardKit } from '../endpoints/guard-kit.js';
import { EndpointRouter } from '../endpoints/mount.js';
import { textField } from '../requests/input.js';
import { orgSchemas } from '../schemas/orgs.js';
import { parseBody } from '../schemas/parse.js';
import { formRoute, type FormRoute } from './forms.js';
import type { OrgPageLocals, OrgsPageLocals } from './org-pages.js';
import { noticeOf, orgNotice, orgRefusal, rolesSent } from './org-refusals.js';
import { sendPage } from './render.js';
import type { PageTexts } from './texts.js';
import { orgPage, orgsPage, removeMemberForm, revokeInvitationForm, setMemberRolesForm } from './org-endpoints.js';

export interface OrgPageDeps {
  config: AuthConfig;
  orgs: OrgActions;
  pluggable: { readonly texts: PageTexts };
}

export function orgPages(deps: OrgPageDeps, kit: GuardKit): EndpointRouter {
  const { config, orgs, pluggable } = deps;
  const prefix = config.urlPrefix;
  const orgPath = (req: Request) => `${prefix}/orgs/${encodeURIComponent(req.org!.slug)}`;

  const showOrgs = async (
    req: Request,
    res: Response,
    status: number,
    extra: Partial<Pick<OrgsPageLocals, 'notice' | 'errors' | 'values'>> = {},
  ): Promise<void> => {
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

  const showOrg = async (
    req: Request,
    res: Response,
    status: number,
    extra: Partial<Pick<OrgPageLocals, 'notice' | 'errors' | 'values'>> = {},
  ): Promise<void> => {
    const org = orgs.show(req);
    const self = req.user!.id;
    const assignable = orgs.assignable(req);
    const members = req.ability!.can('read', 'Membership')
      ? (await orgs.members(req)).map((member) => ({
          ...member,
          self: member.user_id === self,
          mayChangeRoles: assignable.length > 0 && orgs.may(req, 'update', 'Membership', member, 'roles'),
          mayRemove:
            member.user_id !== self &&
            orgs.may(req, 'delete', 'Membership', member) &&
            member.roles.every((role) => assignable.includes(role)),
        }))
      : null;
    const invitations = req.ability!.can('read', 'Invitation')
      ? (await orgs.invitations(req)).map((invitation) => ({
          ...invitation,
          mayRevoke: orgs.may(req, 'delete', 'Invitation', invitation),
        }))
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
      const closed =
        error.code === 'forbidden'
          ? { errors: null, notice: { kind: 'error' as const, text: pluggable.texts.orgs.creationClosed } }
          : undefined;
      const refusal = closed ?? orgRefusal(error, pluggable.texts);
      if (!refusal || !req.user) return false;
      await showOrgs(req, res, error.status, {
        ...refusal,
        values: { name: textField(req, 'name'), slug: textField(req, 'slug') },
      });
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
      if (
        !refusal ||
        !req.user ||
        !req.org ||
        (error.code === 'not_found' && !req.membership) ||
        !orgs.may(req, 'read', 'Organization', { ...req.org })
      )
        return false;
      const inviting = req.path.endsWith('/invitations');
      const values = inviting ? { email: textField(req, 'email'), roles: rolesSent(req) } : null;
      await showOrg(
        req,
        res,
        error.status,
        inviting ? { ...refusal, values } : { notice: refusal.notice ?? noticeOf(refusal.errors), errors: null },
      );
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
    .on(orgPage, (req, res) => showOrg(req, res, 200, { notice: orgNotice(req, pluggable.texts) }), {
      form: formRoute(orgForm),
    })
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
