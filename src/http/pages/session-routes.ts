/**
 * `GET /sessions` for people with browsers, and its buttons' posts. HTML forms cannot send the
 * JSON API's `DELETE /api/sessions…`, so they post to routes of the pages' own,
 * `/sessions/<id>/end` and `/sessions/end-others`, which take only a browser's form (anything else
 * goes on, to the 404 of paths nobody serves). Each answers with a redirect back to the list,
 * saying what was done; ending this browser's own session logs it out, to the login page.
 */
import { Router, type Request, type RequestHandler, type Response } from 'express';
import type { AuthConfig } from '../../config/config.js';
import type { SessionActions } from '../actions/sessions.js';
import { browserFormsOnly } from '../requests/negotiation.js';
import { formRoute, type FormRoute } from './forms.js';
import type { Notice } from './layout.js';
import { sendPage } from './render.js';
import type { PageTexts } from './texts.js';

export interface SessionPageDeps {
  config: AuthConfig;
  sessions: SessionActions;
  loginRequired: RequestHandler;
  pluggable: { readonly texts: PageTexts };
}

export function sessionPages({ config, sessions, loginRequired, pluggable }: SessionPageDeps): Router {
  const prefix = config.urlPrefix;
  const router = Router();

  const show = async (req: Request, res: Response, status: number, notice: Notice | null): Promise<void> => {
    const list = await sessions.list(req);
    await sendPage(req, res, status, 'sessions', { prefix, texts: pluggable.texts, email: req.user!.email, sessions: list, maxSessions: config.sessions.maxPerUser, notice });
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

  router.get('/sessions', loginRequired, (req, res) => show(req, res, 200, noticeOf(req, pluggable.texts)));

  router.post('/sessions/end-others', browserFormsOnly, formRoute(sessionsForm), loginRequired, async (req, res) => {
    await sessions.endOthers(req);
    res.redirect(303, `${prefix}/sessions?ended=others`);
  });

  router.post('/sessions/:id/end', browserFormsOnly, formRoute(sessionsForm), loginRequired, async (req, res) => {
    const loggedOut = await sessions.end(req, res, String(req.params['id']));
    res.redirect(303, loggedOut ? `${prefix}/login` : `${prefix}/sessions?ended=one`);
  });

  return router;
}

/** What the redirect that led here says was done. */
function noticeOf(req: Request, texts: PageTexts): Notice | null {
  const t = texts.sessions;
  if (req.query['password'] === 'changed') return { kind: 'info', text: t.passwordChanged };
  if (req.query['ended'] === 'one') return { kind: 'info', text: t.ended };
  if (req.query['ended'] === 'others') return { kind: 'info', text: t.othersEnded };
  return null;
}
