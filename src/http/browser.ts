/**
 * Serving people with browsers as well as API clients. The same endpoints answer both: a form
 * post from a browser (urlencoded, preferring HTML) gets a redirect on success and a page on
 * failure (the form again with the problem beside its field, or a page saying what happened);
 * everything else gets JSON.
 */
import type { ErrorRequestHandler, Request, RequestHandler, Response } from 'express';
import { AuthError } from '../errors.js';
import { APPLICATION_VIEW_CSP, BUILT_IN_CSP } from './pages/assets.js';
import { PAGES, type PageLocalsByName, type PageName } from './pages/index.js';
import { problemFor } from './pages/refusals.js';
import type { PageTexts } from './pages/texts.js';

/** Accept prefers HTML to JSON: a navigation, not an API call (curl's `*\/*` counts as JSON). */
export function prefersHtml(req: Request): boolean {
  return req.accepts(['application/json', 'text/html']) === 'text/html';
}

export function isBrowserForm(req: Request): boolean {
  return Boolean(req.is('application/x-www-form-urlencoded')) && prefersHtml(req);
}

/**
 * A path on this site to continue to, or `fallback`. Refuses anything a browser could read as
 * another origin: `//host`, `/\host`, schemes, and control characters that some browsers strip.
 */
export function safeNext(value: unknown, fallback = '/'): string {
  if (typeof value !== 'string' || value.length > 2048) return fallback;
  if (!value.startsWith('/') || value.startsWith('//') || value.startsWith('/\\')) return fallback;
  if (/[\u0000-\u001f\u007f\\]/.test(value)) return fallback;
  return value;
}

/**
 * Sends one of the built-in pages, or the application's own view `service-auth/<name>` when its
 * view engine has one (same locals), so an application restyles the pages without touching routes.
 */
export async function sendPage<N extends PageName>(req: Request, res: Response, status: number, name: N, locals: PageLocalsByName[N]): Promise<void> {
  const own = await renderApplicationView(req, res, name, locals);
  const render: (locals: PageLocalsByName[N]) => string = PAGES[name];
  res.status(status);
  setPageHeaders(res, own === undefined ? BUILT_IN_CSP : APPLICATION_VIEW_CSP);
  res.type('html').send(own ?? render(locals));
}

/**
 * For every page: out of caches (a page may carry a reset token or a new API token), never framed
 * by another site (a framed form invites clickjacking), no Referer with a token. The built-in pages
 * also allow only their own inline style and script (see pages/assets.ts); an application's own
 * templates keep only the framing rule, and may add their own policy.
 */
function setPageHeaders(res: Response, contentSecurityPolicy: string): void {
  res.setHeader('Cache-Control', 'no-store');
  res.setHeader('X-Frame-Options', 'DENY');
  res.setHeader('Content-Security-Policy', contentSecurityPolicy);
  res.setHeader('Referrer-Policy', 'no-referrer');
}

/** Per request: the page whose form was sent, as its route said (`formFrom`). */
const formPages = new WeakMap<Request, string>();

/**
 * Placed first on a route that forms post to: the page that form is on (`where`), for the link of
 * a refusal's page (`problemPages`). The route says it, so no other router needs to know its paths.
 */
export function formFrom(where: (req: Request) => string): RequestHandler {
  return (req, _res, next) => {
    formPages.set(req, where(req));
    next();
  };
}

/**
 * The last word on a browser's refused form post, before the router's problem details: a page of
 * its own with the same status and headers (`Retry-After`), and a link to go on with: back to the
 * page whose form was sent (`formFrom`; the home page if its route did not say), or to the login
 * page and then back there if the session ended.
 */
export function problemPages(options: { prefix: string; texts: () => PageTexts }): ErrorRequestHandler {
  return (error, req, res, next) => {
    if (!(error instanceof AuthError) || !isBrowserForm(req) || res.headersSent) {
      next(error);
      return;
    }
    const texts = options.texts();
    for (const [header, value] of Object.entries(error.headers)) res.setHeader(header, value);
    const { title, text } = problemFor(error, texts);
    const back = formPages.get(req) ?? '/';
    const link =
      error.code === 'unauthenticated'
        ? { href: `${options.prefix}/login?next=${encodeURIComponent(back)}`, text: texts.problems.loggedOut.action }
        : { href: back, text: texts.problems.back };
    sendPage(req, res, error.status, 'problem', { prefix: options.prefix, texts, code: error.code, title, text, link }).catch(next);
  };
}

function renderApplicationView<N extends PageName>(req: Request, res: Response, name: N, locals: PageLocalsByName[N]): Promise<string | undefined> {
  if (!req.app.get('view engine')) return Promise.resolve(undefined);
  return new Promise((resolve, reject) => {
    res.render(`service-auth/${name}`, { ...locals }, (error: Error | null, html?: string) => {
      if (!error) resolve(html);
      else if (/^Failed to lookup view/.test(error.message)) resolve(undefined);
      else reject(error);
    });
  });
}
