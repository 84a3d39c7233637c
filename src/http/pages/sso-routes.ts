/**
 * Sign-in through identity providers for people with browsers (`GET /sso/:provider` and its
 * callback), and `GET /identities` with its unlink buttons' posts (identities-page.ts). A program
 * may follow the same redirects: a refusal is then problem details, and an account with a second
 * factor gets the 401 `mfa_required` with its ticket rather than the second step's page.
 */
import { Router, type Request, type RequestHandler, type Response } from 'express';
import type { AuthConfig } from '../../config/config.js';
import type { SsoActions } from '../actions/sso.js';
import { browserFormsOnly, safeNext, wantsPage } from '../requests/negotiation.js';
import { formRoute, type FormRoute } from './forms.js';
import type { Notice } from './layout.js';
import { sendPage } from './render.js';
import type { PageTexts } from './texts.js';

export interface SsoPageDeps {
  config: AuthConfig;
  sso: SsoActions;
  providers: { list(): { id: string; name: string }[] };
  loginRequired: RequestHandler;
  pluggable: { readonly texts: PageTexts };
}

export function ssoPages({ config, sso, providers, loginRequired, pluggable }: SsoPageDeps): Router {
  const prefix = config.urlPrefix;
  const router = Router();
  const show = async (req: Request, res: Response, status: number, notice: Notice | null): Promise<void> => {
    const identities = await sso.list(req);
    await sendPage(req, res, status, 'identities', { prefix, texts: pluggable.texts, email: req.user!.email, identities, providers: providers.list(), notice });
  };
  // A refused answer's page links back to the login page, where the sign-in starts again.
  const callbackForm: FormRoute = { fields: [], page: () => `${prefix}/login`, showAgain: async () => false };
  const removeForm: FormRoute = {
    fields: [],
    page: () => `${prefix}/identities`,
    async showAgain(req, res, error) {
      if (!req.user || (error.code !== 'last_sign_in_method' && error.code !== 'not_found')) return false;
      const t = pluggable.texts.sso;
      await show(req, res, error.status, { kind: 'error', text: error.code === 'last_sign_in_method' ? t.lastMethod : pluggable.texts.problems.notFound.text });
      return true;
    },
  };

  router.get('/sso/:provider', async (req, res) => {
    seeOther(res, await sso.start(req, res));
  });
  router.get('/sso/:provider/callback', formRoute(callbackForm), async (req, res) => {
    const outcome = await sso.finish(req, res);
    if (outcome.kind === 'signed_in') seeOther(res, safeNext(outcome.next));
    else if (outcome.kind === 'linked') seeOther(res, `${prefix}/identities?linked=1`);
    else if (!wantsPage(req)) throw outcome.step;
    else {
      const { ticket, methods } = outcome.step;
      await sendPage(req, res, 200, 'login-mfa', { prefix, texts: pluggable.texts, ticket, passkey: methods.includes('passkey'), next: outcome.next, errors: null, notice: null });
    }
  });

  router.get('/identities', loginRequired, (req, res) => {
    const t = pluggable.texts.sso;
    const notice: Notice | null = req.query['linked'] === '1' ? { kind: 'info', text: t.linked } : req.query['unlinked'] === '1' ? { kind: 'info', text: t.unlinked } : null;
    return show(req, res, 200, notice);
  });
  router.post('/identities/:id/remove', browserFormsOnly, formRoute(removeForm), loginRequired, async (req, res) => {
    await sso.unlink(req);
    res.redirect(303, `${prefix}/identities?unlinked=1`);
  });
  return router;
}

/**
 * A 303 with a line of text whatever the Accept header: browsers and programs that follow the
 * provider's redirects alike (Express's `res.redirect` writes no body for a JSON client).
 */
function seeOther(res: Response, url: string): void {
  res.status(303).location(url).type('text/plain').send(`See Other. Redirecting to ${url}`);
}
