/**
 * `/api/tokens` (CONTRACT section 3): create (a session only), list and revoke the caller's own
 * tokens; and the `/tokens` page for browsers, whose forms post here.
 */
import { Router, type ErrorRequestHandler, type Request, type RequestHandler, type Response } from 'express';
import type { AuthConfig } from '../config.js';
import { AuthError } from '../errors.js';
import type { CreatedToken, TokenService } from '../tokens/service.js';
import { isBrowserForm, setPageHeaders } from './browser.js';
import { tokensPage } from './pages/tokens-page.js';
import type { Notice } from './pages/layout.js';

export interface TokenRouteDeps {
  config: AuthConfig;
  tokens: TokenService;
  loginRequired: RequestHandler;
}

export function tokenRoutes({ config, tokens, loginRequired }: TokenRouteDeps): { api: Router; page: Router } {
  const listOwn = async (req: Request) => (await tokens.list({ user: req.user!.id })).map(({ email: _email, ...view }) => view);

  const showPage = async (req: Request, res: Response, status: number, extra: PageExtras = {}): Promise<void> => {
    const html = tokensPage({
      prefix: config.urlPrefix,
      email: req.user!.email,
      tokens: await listOwn(req),
      maxExpiryDays: config.tokens.maxExpiryDays,
      defaultExpiryDays: config.tokens.defaultExpiryDays,
      ...extra,
    });
    // The page may show a raw token: never cached, never framed.
    res.status(status);
    setPageHeaders(res);
    res.type('html').send(html);
  };

  const api = Router();
  api.post(
    '/',
    loginRequired,
    (async (req, res) => {
      // A token must not mint tokens: a leaked one would otherwise outlive its own revocation.
      if (req.authMethod !== 'session') throw new AuthError('session_required', 'Create tokens from a logged-in session, not with a token');
      const body = (req.body ?? {}) as Record<string, unknown>;
      const form = isBrowserForm(req);
      const created = await tokens.create(req.user!.id, {
        name: body['name'],
        expiresInDays: body['expires_in_days'],
        // A form sends scopes as one space- or comma-separated field.
        scopes: form && typeof body['scopes'] === 'string' ? body['scopes'].split(/[\s,]+/).filter(Boolean) : body['scopes'],
      });
      if (form) await showPage(req, res, 201, { created });
      else res.status(201).setHeader('Cache-Control', 'no-store').json(created);
    }) satisfies RequestHandler,
    pageErrors(showPage),
  );

  api.get('/', loginRequired, async (req, res) => {
    res.json({ tokens: await listOwn(req) });
  });

  api.delete('/:id', loginRequired, async (req, res) => {
    await tokens.revoke(String(req.params['id']), req.user!.id);
    res.status(204).end();
  });

  // HTML forms cannot send DELETE: the tokens page posts here instead.
  api.post('/:id/revoke', loginRequired, async (req, res) => {
    await tokens.revoke(String(req.params['id']), req.user!.id);
    if (isBrowserForm(req)) res.redirect(303, `${config.urlPrefix}/tokens`);
    else res.status(204).end();
  });

  const page = Router();
  page.get('/', loginRequired, (req, res) => showPage(req, res, 200));

  return { api, page };
}

type PageExtras = { created?: CreatedToken; notice?: Notice };

/** A browser's failed form post shows the tokens page again, with the problem explained. */
function pageErrors(showPage: (req: Request, res: Response, status: number, extra: PageExtras) => Promise<void>): ErrorRequestHandler {
  return (error, req, res, next) => {
    if (!(error instanceof AuthError) || !isBrowserForm(req) || !req.user) {
      next(error);
      return;
    }
    const notice: Notice = { kind: 'error', text: error.message, items: error.errors?.map((e) => ('field' in e ? `${e.field} ${e.message}` : e.message)) };
    showPage(req, res, error.status, { notice }).catch(next);
  };
}
