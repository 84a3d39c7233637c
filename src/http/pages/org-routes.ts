/**
 * The organization pages for people with browsers (`/orgs`, `/orgs/<org>`, the invitation link's
 * `/invitations/accept`), and their forms' posts. Creating, inviting and accepting post to the
 * JSON API's paths (`/api/orgs`, `/api/orgs/<org>/invitations`, `/api/invitations/accept`): a post
 * that is not a browser's form goes on to the API. HTML forms cannot send PATCH or DELETE, so
 * changing roles, removing (leaving) and revoking post to routes of the pages' own, which take
 * only a browser's form. Each answers with a redirect saying what was done; a refusal shows the
 * page again with the problem beside its field or above the forms.
 */
import { Router, type Request, type RequestHandler, type Response } from 'express';
import type { AuthConfig } from '../../config/config.js';
import type { AuthError } from '../../errors.js';
import { idParameter, type OrgActions } from '../actions/orgs.js';
import { textField } from '../requests/input.js';
import { browserFormsOnly } from '../requests/negotiation.js';
import { orgSchemas } from '../schemas/orgs.js';
import { parseBody } from '../schemas/parse.js';
import type { FieldErrors } from './fields.js';
import { formRoute, type FormRoute } from './forms.js';
import type { InvitationPageLocals, InvitationPageState } from './invitation-page.js';
import type { Notice } from './layout.js';
import type { OrgPageLocals, OrgsPageLocals } from './org-pages.js';
import { sendPage } from './render.js';
import type { PageTexts } from './texts.js';

/** With the rate limits of creating, inviting and accepting (empty when limits are off). */
export interface OrgPageDeps extends Record<'createLimit' | 'inviteLimit' | 'acceptLimit', RequestHandler[]> {
  config: AuthConfig;
  orgs: OrgActions;
  loginRequired: RequestHandler;
  /** `loginRequired`, with `req.ability` ready (the user's attributes loaded): where the ability is asked outside an organization. */
  abilityReady: RequestHandler;
  /** `orgRequired('org')`. */
  orgRequired: RequestHandler;
  /** The user of a request where logging in is optional (the invitation link), or null. */
  currentUser(req: Request): Promise<{ email: string; email_confirmed: boolean } | null>;
  pluggable: { readonly texts: PageTexts };
}

export function orgPages(deps: OrgPageDeps): Router {
  const { config, orgs, loginRequired, abilityReady, orgRequired, currentUser, createLimit, inviteLimit, acceptLimit, pluggable } = deps;
  const prefix = config.urlPrefix;
  const router = Router();
  const orgPath = (req: Request) => `${prefix}/orgs/${encodeURIComponent(req.org!.slug)}`;
  const scopes = orgs.everyScope;
  // Scopes first: a token with scopes learns nothing, not even which organizations exist.
  const inOrg = [loginRequired, scopes, orgRequired];

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

  router.get('/orgs', abilityReady, scopes, (req, res) => showOrgs(req, res, 200, req.query['left'] === '1' ? { notice: { kind: 'info', text: pluggable.texts.orgs.left } } : {}));

  router.post('/api/orgs', browserFormsOnly, formRoute(orgsForm), abilityReady, ...createLimit, async (req, res) => {
    const org = await orgs.create(req, parseBody(orgSchemas.createForm, req));
    res.redirect(303, `${prefix}/orgs/${encodeURIComponent(org.slug)}`);
  });

  router.get('/orgs/:org', formRoute(orgForm), ...inOrg, (req, res) => showOrg(req, res, 200, { notice: orgNotice(req, pluggable.texts) }));

  router.post('/orgs/:org/members/:user_id/roles', browserFormsOnly, formRoute(orgForm), ...inOrg, async (req, res) => {
    await orgs.setRoles(req, idParameter(req, 'user_id', 'member of this organization'), parseBody(orgSchemas.memberRolesForm, req).roles);
    res.redirect(303, `${orgPath(req)}?done=roles`);
  });

  router.post('/orgs/:org/members/:user_id/remove', browserFormsOnly, formRoute(orgForm), ...inOrg, async (req, res) => {
    const userId = idParameter(req, 'user_id', 'member of this organization');
    await orgs.removeMember(req, userId);
    res.redirect(303, userId === req.user!.id ? `${prefix}/orgs?left=1` : `${orgPath(req)}?done=removed`);
  });

  router.post('/api/orgs/:org/invitations', browserFormsOnly, formRoute(orgForm), ...inOrg, ...inviteLimit, async (req, res) => {
    await orgs.invite(req, parseBody(orgSchemas.inviteForm, req));
    res.redirect(303, `${orgPath(req)}?done=invited`);
  });

  router.post('/orgs/:org/invitations/:id/revoke', browserFormsOnly, formRoute(orgForm), ...inOrg, async (req, res) => {
    await orgs.revoke(req, idParameter(req, 'id', 'invitation pending in this organization'));
    res.redirect(303, `${orgPath(req)}?done=revoked`);
  });

  // ---- the invitation link ----

  const showInvitation = async (req: Request, res: Response, status: number, token: string | null, forced?: InvitationPageState): Promise<void> => {
    const found = token ? await orgs.invitationFor(token) : null;
    const user = await currentUser(req);
    const state: InvitationPageState =
      forced ?? (!found ? 'unusable' : !user ? 'sign-in' : user.email !== found.email ? 'other-account' : !user.email_confirmed ? 'unconfirmed' : 'accept');
    const locals: InvitationPageLocals = {
      prefix,
      texts: pluggable.texts,
      state,
      token: state === 'accept' ? token : null,
      invitation: found && state !== 'unusable' ? { org: found.org, roles: found.roles } : null,
      email: user?.email ?? null,
      back: `${prefix}/invitations/accept${token ? `?token=${encodeURIComponent(token)}` : ''}`,
      notice: null,
    };
    await sendPage(req, res, status, 'invitation', locals);
  };

  const acceptForm: FormRoute = {
    fields: ['token'],
    page: (req) => `${prefix}/invitations/accept?token=${encodeURIComponent(textField(req, 'token') ?? '')}`,
    async showAgain(req, res, error) {
      const states: Partial<Record<string, InvitationPageState>> = { invalid_invitation: 'unusable', invitation_email_mismatch: 'other-account', already_member: 'member' };
      const state = states[error.code];
      if (!state) return false;
      await showInvitation(req, res, error.status, textField(req, 'token'), state);
      return true;
    },
  };

  router.get('/invitations/accept', (req, res) => showInvitation(req, res, 200, typeof req.query['token'] === 'string' && req.query['token'] ? req.query['token'] : null));

  router.post('/api/invitations/accept', browserFormsOnly, formRoute(acceptForm), loginRequired, ...acceptLimit, async (req, res) => {
    const { org } = await orgs.accept(req, parseBody(orgSchemas.accept, req).token);
    res.redirect(303, `${prefix}/orgs/${encodeURIComponent(org.slug)}?done=joined`);
  });

  return router;
}

/** The refusal of an organization form in the pages' words, or undefined when it deserves a page of its own. */
function orgRefusal(error: AuthError, texts: PageTexts): { errors: FieldErrors | null; notice: Notice | null } | undefined {
  const e = texts.orgErrors;
  const field = (name: string, message: string) => ({ errors: { [name]: { message } }, notice: null });
  const notice = (text: string) => ({ errors: null, notice: { kind: 'error' as const, text } });
  switch (error.code) {
    case 'bad_request': {
      if (!error.errors?.length) return undefined;
      const errors: FieldErrors = {};
      for (const item of error.errors) {
        if (!('field' in item)) continue;
        const known: Record<string, string> = { name: e.name, slug: e.slug, roles: e.roles, email: texts.errors.invalidEmail };
        errors[item.field] = { message: item.message === 'is required' ? texts.errors.required : (known[item.field] ?? item.message) };
      }
      return { errors, notice: null };
    }
    case 'invalid_email':
      return field('email', texts.errors.invalidEmail);
    case 'slug_taken':
      return field('slug', e.slugTaken);
    case 'already_member':
      return field('email', e.alreadyMember);
    case 'unknown_role':
      return field('roles', e.unknownRole);
    case 'last_owner':
      return notice(e.lastOwner);
    case 'too_many_organizations':
      return notice(e.tooMany);
    case 'forbidden':
      return notice(e.notAllowed);
    case 'not_found':
      return notice(texts.problems.notFound.text);
    default:
      return undefined;
  }
}

/** Field problems of a form with no fields shown (the roles of a member's row), as one notice. */
function noticeOf(errors: FieldErrors | null): Notice | null {
  const first = errors && Object.values(errors)[0];
  return first ? { kind: 'error', text: first.message } : null;
}

/** The roles a form ticked, as text. */
function rolesSent(req: Request): string[] {
  const value: unknown = (req.body as Record<string, unknown> | undefined)?.['roles'];
  return (Array.isArray(value) ? value : [value]).filter((role): role is string => typeof role === 'string');
}

/** What the redirect that led to an organization's page says was done. */
function orgNotice(req: Request, texts: PageTexts): Notice | null {
  const t = texts.org;
  const done: Record<string, string> = { roles: t.rolesChanged, removed: t.removed, invited: t.invited, revoked: t.revoked, joined: t.joined };
  const key = req.query['done'];
  const text = typeof key === 'string' && Object.hasOwn(done, key) ? done[key] : undefined;
  return text ? { kind: 'info', text } : null;
}
