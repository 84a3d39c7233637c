/** `GET /passkeys` for people with browsers, and its remove buttons' posts (passkeys-page.ts). */
import { Router, type Request, type RequestHandler, type Response } from 'express';
import type { AuthConfig } from '../../config/config.js';
import type { MfaActions } from '../actions/mfa.js';
import { browserFormsOnly } from '../requests/negotiation.js';
import { formRoute, type FormRoute } from './forms.js';
import type { Notice } from './layout.js';
import { sendPage } from './render.js';
import type { PageTexts } from './texts.js';

export interface PasskeyPageDeps {
  config: AuthConfig;
  mfa: MfaActions;
  loginRequired: RequestHandler;
  pluggable: { readonly texts: PageTexts };
}

export function passkeyPages({ config, mfa, loginRequired, pluggable }: PasskeyPageDeps): Router {
  const prefix = config.urlPrefix;
  const router = Router();
  const show = async (req: Request, res: Response, status: number, notice: Notice | null): Promise<void> => {
    await sendPage(req, res, status, 'passkeys', { prefix, texts: pluggable.texts, email: req.user!.email, passkeys: await mfa.passkeys(req), notice });
  };
  const removeForm: FormRoute = { fields: [], page: () => `${prefix}/passkeys`, showAgain: async () => false };

  router.get('/passkeys', loginRequired, (req, res) => {
    const t = pluggable.texts.passkeys;
    const notice: Notice | null = req.query['added'] === '1' ? { kind: 'info', text: t.added } : req.query['removed'] === '1' ? { kind: 'info', text: t.removed } : null;
    return show(req, res, 200, notice);
  });
  router.post('/passkeys/:id/remove', browserFormsOnly, formRoute(removeForm), loginRequired, async (req, res) => {
    await mfa.removePasskey(req, String(req.params['id']));
    res.redirect(303, `${prefix}/passkeys?removed=1`);
  });
  return router;
}
