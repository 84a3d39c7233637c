/**
 * The invitation link's page (`/invitations/accept?token=…`), which changes nothing, and its
 * button's post to `/api/invitations/accept` (the JSON API's path: api/invitations.ts), answered
 * with a redirect to the organization's page.
 */
import type { Request, Response } from 'express';
import type { AuthConfig } from '../../config/config.js';
import type { OrgActions } from '../actions/orgs.js';
import { acceptInvitation } from '../api/invitations.js';
import { endpoint } from '../endpoints/endpoint.js';
import type { GuardKit } from '../endpoints/guard-kit.js';
import { EndpointRouter } from '../endpoints/mount.js';
import { queryParameter } from '../openapi/operations.js';
import { page } from '../openapi/responses.js';
import { textField } from '../requests/input.js';
import { orgSchemas } from '../schemas/orgs.js';
import { parseBody } from '../schemas/parse.js';
import { formRoute, type FormRoute } from './forms.js';
import type { InvitationPageLocals, InvitationPageState } from './invitation-page.js';
import { sendPage } from './render.js';
import type { PageTexts } from './texts.js';

export const invitationPage = endpoint({
  method: 'get',
  path: '/invitations/accept',
  operationId: 'invitationPage',
  summary: 'The page of the mailed invitation link',
  description: [
    'Opening it changes nothing (mail scanners follow links). Signed in with the invited address, confirmed: what',
    'the invitation is for, and a button whose form posts the token to `POST /api/invitations/accept`. Otherwise it',
    'says to log in or register with that address and come back, or that the link cannot be used.',
  ].join(' '),
  tags: ['pages'],
  parameters: [queryParameter('token', 'The invitation link’s token')],
  responses: { 200: page('The page') },
});

export interface InvitationPageDeps {
  config: AuthConfig;
  orgs: OrgActions;
  /** The user of a request where logging in is optional (the invitation link), or null. */
  currentUser(req: Request): Promise<{ email: string; email_confirmed: boolean } | null>;
  pluggable: { readonly texts: PageTexts };
}

export function invitationPages(deps: InvitationPageDeps, kit: GuardKit): EndpointRouter {
  const { config, orgs, currentUser, pluggable } = deps;
  const prefix = config.urlPrefix;

  const showInvitation = async (
    req: Request,
    res: Response,
    status: number,
    token: string | null,
    forced?: InvitationPageState,
  ): Promise<void> => {
    const found = token ? await orgs.invitationFor(token) : null;
    const user = await currentUser(req);
    const state: InvitationPageState =
      forced ??
      (!found
        ? 'unusable'
        : !user
          ? 'sign-in'
          : user.email !== found.email
            ? 'other-account'
            : !user.email_confirmed
              ? 'unconfirmed'
              : 'accept');
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
      const states: Partial<Record<string, InvitationPageState>> = {
        invalid_invitation: 'unusable',
        invitation_email_mismatch: 'other-account',
        already_member: 'member',
      };
      const state = states[error.code];
      if (!state) return false;
      await showInvitation(req, res, error.status, textField(req, 'token'), state);
      return true;
    },
  };

  const tokenOf = (req: Request): string | null =>
    typeof req.query['token'] === 'string' && req.query['token'] ? req.query['token'] : null;
  return new EndpointRouter(kit)
    .on(invitationPage, (req, res) => showInvitation(req, res, 200, tokenOf(req)))
    .form(acceptInvitation, formRoute(acceptForm), async (req, res) => {
      const { org } = await orgs.accept(req, parseBody(orgSchemas.accept, req).token);
      res.redirect(303, `${prefix}/orgs/${encodeURIComponent(org.slug)}?done=joined`);
    });
}
