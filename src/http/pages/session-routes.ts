/**
 * `GET /sessions` for people with browsers, and its buttons' posts. HTML forms cannot send the
 * JSON API's `DELETE /api/sessions…`, so they post to routes of the pages' own,
 * `/sessions/<id>/end` and `/sessions/end-others`, which take only a browser's form (anything else
 * goes on, to the 404 of paths nobody serves). Each answers with a redirect back to the list,
 * saying what was done; ending this browser's own session logs it out, to the login page.
 */
import type { Request, Response } from 'express';
import type { AuthConfig } from '../../config/config.js';
import type { SessionActions } from '../actions/sessions.js';
import type { GuardKit } from '../endpoints/guard-kit.js';
import { EndpointRouter } from '../endpoints/mount.js';
import { pathId, queryParameter } from '../openapi/operations.js';
import { redirect } from '../openapi/responses.js';
import { formRoute, type FormRoute } from './forms.js';
import type { Notice } from './layout.js';
import { clearsCookie, formOnly, ownPage, UNSAFE } from './page-endpoints.js';
import { sendPage } from './render.js';
import type { PageTexts } from './texts.js';

export const sessionsPage = ownPage(
  '/sessions',
  'sessionsPage',
  'The sessions page: where the caller is logged in, with a button to end each session and one to end every other',
  'Its buttons post to `POST /sessions/{id}/end` and `POST /sessions/end-others`.',
  [
    queryParameter('ended', '`one` or `others`: says which sessions were ended'),
    queryParameter('password', '`changed`: says the password was changed (and every other session ended)'),
  ],
);

export const endSessionForm = formOnly({
  path: '/sessions/:id/end',
  operationId: 'endSessionForm',
  summary: 'End one session (the sessions page’s button)',
  description: ({ config }) =>
    [
      'As `DELETE /api/sessions/{id}`, which a form cannot send; another user’s session is a 404, like an unknown id.',
      `Answered with a 303 to \`${config.urlPrefix}/sessions?ended=one\`, or, for this browser’s own session, to`,
      `\`${config.urlPrefix}/login\` with the cookie cleared.`,
    ].join(' '),
  parameters: [pathId('The session’s public id (`id` in the list)')],
  responses: (context) => ({
    303: redirect(
      'Ended: to the sessions page, or to the login page when it was this browser’s session (the cookie cleared)',
      clearsCookie(context, false),
    ),
  }),
  refusals: UNSAFE,
});

export const endOtherSessionsForm = formOnly({
  path: '/sessions/end-others',
  operationId: 'endOtherSessionsForm',
  summary: 'End every other session (the sessions page’s button)',
  description: ({ config }) =>
    'As `DELETE /api/sessions`, which a form cannot send. Answered with a 303 to' +
    ` \`${config.urlPrefix}/sessions?ended=others\`.`,
  responses: { 303: redirect('Ended: to the sessions page') },
  refusals: UNSAFE,
});

export const SESSION_PAGES = [sessionsPage, endSessionForm, endOtherSessionsForm];

export interface SessionPageDeps {
  config: AuthConfig;
  sessions: SessionActions;
  pluggable: { readonly texts: PageTexts };
}

export function sessionPages({ config, sessions, pluggable }: SessionPageDeps, kit: GuardKit): EndpointRouter {
  const prefix = config.urlPrefix;

  const show = async (req: Request, res: Response, status: number, notice: Notice | null): Promise<void> => {
    const list = await sessions.list(req);
    const maxSessions = config.sessions.maxPerUser;
    const locals = { prefix, texts: pluggable.texts, email: req.user!.email, sessions: list, maxSessions, notice };
    await sendPage(req, res, status, 'sessions', locals);
  };

  // A session that ended meanwhile (on another device, or by its expiry) shows the list, saying so.
  const sessionsForm: FormRoute = {
    fields: [],
    page: () => `${prefix}/sessions`,
    async showAgain(req, res, error) {
      if (error.code !== 'not_found' || !req.user || req.authMethod !== 'session') return false;
      await show(req, res, error.status, { kind: 'error', text: pluggable.texts.sessions.notFound });
      return true;
    },
  };

  return new EndpointRouter(kit)
    .on(sessionsPage, (req, res) => show(req, res, 200, noticeOf(req, pluggable.texts)))
    .on(
      endOtherSessionsForm,
      async (req, res) => {
        await sessions.endOthers(req);
        res.redirect(303, `${prefix}/sessions?ended=others`);
      },
      { form: formRoute(sessionsForm) },
    )
    .on(
      endSessionForm,
      async (req, res) => {
        const loggedOut = await sessions.end(req, res, String(req.params['id']));
        res.redirect(303, loggedOut ? `${prefix}/login` : `${prefix}/sessions?ended=one`);
      },
      { form: formRoute(sessionsForm) },
    );
}

/** What the redirect that led here says was done. */
function noticeOf(req: Request, texts: PageTexts): Notice | null {
  const t = texts.sessions;
  if (req.query['password'] === 'changed') return { kind: 'info', text: t.passwordChanged };
  if (req.query['ended'] === 'one') return { kind: 'info', text: t.ended };
  if (req.query['ended'] === 'others') return { kind: 'info', text: t.othersEnded };
  return null;
}
