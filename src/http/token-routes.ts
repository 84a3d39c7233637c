/**
 * `/api/tokens` (CONTRACT section 3): create (a session only), list and revoke the caller's own
 * tokens; and the `/tokens` pages for browsers (the list, and a confirmation before revoking),
 * whose forms post here.
 */
import { Router, type ErrorRequestHandler, type Request, type RequestHandler, type Response } from 'express';
import type { AuthConfig } from '../config.js';
import { AuthError } from '../errors.js';
import { assertSameSite } from '../sessions/csrf.js';
import type { TokenService } from '../tokens/service.js';
import type { AuthUser } from '../users/auth-user.js';
import { formFrom, isBrowserForm, sendPage } from './browser.js';
import type { TokensPageLocals } from './pages/tokens-page.js';
import { formRefusal } from './pages/refusals.js';
import type { PageTexts } from './pages/texts.js';

export interface TokenRouteDeps {
  config: AuthConfig;
  tokens: TokenService;
  loginRequired: RequestHandler;
  /** The request's user, or null; refusals of bad credentials count as nobody. */
  currentUser(req: Request): Promise<AuthUser | null>;
  texts(): PageTexts;
}

type PageExtras = Pick<TokensPageLocals, 'created' | 'notice' | 'errors' | 'values'>;

export function tokenRoutes({ config, tokens, loginRequired, currentUser, texts }: TokenRouteDeps): { api: Router; page: Router } {
  const publicOrigin = new URL(config.publicUrl).origin;
  const listOwn = async (req: Request) => (await tokens.list({ user: req.user!.id })).map(({ email: _email, ...view }) => view);

  const showPage = async (req: Request, res: Response, status: number, extra: PageExtras = {}): Promise<void> => {
    await sendPage(req, res, status, 'tokens', {
      prefix: config.urlPrefix,
      texts: texts(),
      email: req.user!.email,
      tokens: await listOwn(req),
      maxExpiryDays: config.tokens.maxExpiryDays,
      defaultExpiryDays: config.tokens.defaultExpiryDays,
      ...extra,
    });
  };

  /**
   * Before the guard, for a browser's form post: the guard answers its refusals (another site, no
   * session) with problem details, which a person would see as raw JSON. Refused here instead,
   * they become pages (`problemPages`). Bearer requests are exempt from the site check, as always.
   */
  const formGate: RequestHandler = async (req, _res, next) => {
    if (isBrowserForm(req) && !req.get('authorization')) {
      assertSameSite(req, publicOrigin);
      if (!(await currentUser(req))) throw new AuthError('unauthenticated', 'Log in to do this');
    }
    next();
  };

  // The forms posting here are on the tokens pages (the list, the revoke confirmation): a
  // refusal's page links back to the list.
  const tokensPage = formFrom(() => `${config.urlPrefix}/tokens`);

  const api = Router();
  api.post(
    '/',
    tokensPage,
    formGate,
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
    refusedTokenForm(showPage, texts, config),
  );

  api.get('/', loginRequired, async (req, res) => {
    res.json({ tokens: await listOwn(req) });
  });

  api.delete('/:id', loginRequired, async (req, res) => {
    await tokens.revoke(String(req.params['id']), req.user!.id);
    res.status(204).end();
  });

  // HTML forms cannot send DELETE: the revoke confirmation page posts here instead.
  api.post(
    '/:id/revoke',
    tokensPage,
    formGate,
    loginRequired,
    (async (req, res) => {
      await tokens.revoke(String(req.params['id']), req.user!.id);
      if (isBrowserForm(req)) res.redirect(303, `${config.urlPrefix}/tokens?revoked=1`);
      else res.status(204).end();
    }) satisfies RequestHandler,
    refusedTokenForm(showPage, texts, config),
  );

  const page = Router();
  page.get('/', loginRequired, (req, res) =>
    showPage(req, res, 200, req.query['revoked'] === '1' ? { notice: { kind: 'info', text: texts().tokens.revoked } } : {}),
  );
  page.get('/:id/revoke', loginRequired, async (req, res) => {
    const token = (await listOwn(req)).find((t) => t.id === req.params['id']);
    if (!token) await showPage(req, res, 404, { notice: { kind: 'error', text: texts().errors.tokenNotFound } });
    else await sendPage(req, res, 200, 'revoke', { prefix: config.urlPrefix, texts: texts(), token });
  });

  return { api, page };
}

/**
 * A browser's refused form post shows the tokens page again: field problems beside their field,
 * with what was typed; others above the list. Refusals without a user go on to `problemPages`.
 */
function refusedTokenForm(
  showPage: (req: Request, res: Response, status: number, extra: PageExtras) => Promise<void>,
  texts: () => PageTexts,
  config: AuthConfig,
): ErrorRequestHandler {
  return (error, req, res, next) => {
    const refusal = error instanceof AuthError && isBrowserForm(req) && req.user ? formRefusal(error, texts(), config) : undefined;
    if (!refusal) {
      next(error);
      return;
    }
    const body = (req.body ?? {}) as Record<string, unknown>;
    const text = (key: string) => (typeof body[key] === 'string' ? body[key] : undefined);
    showPage(req, res, (error as AuthError).status, {
      ...refusal,
      values: { name: text('name'), expires_in_days: text('expires_in_days'), scopes: text('scopes') },
    }).catch(next);
  };
}
