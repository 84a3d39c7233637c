/**
 * Serving people with browsers as well as API clients. The same endpoints answer both: a form
 * post from a browser (urlencoded, preferring HTML) gets a redirect on success and the form again,
 * with the problem explained, on failure; everything else gets JSON.
 */
import type { Request, Response } from 'express';
import { PAGES, type PageLocals, type PageName } from './pages/account-pages.js';

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
export async function sendPage(req: Request, res: Response, status: number, name: PageName, locals: PageLocals): Promise<void> {
  const html = (await renderApplicationView(req, res, name, locals)) ?? PAGES[name](locals);
  res.status(status);
  setPageHeaders(res);
  res.type('html').send(html);
}

/**
 * For every built-in page: out of caches (a page may carry a reset token or an account's error),
 * never framed by another site (a framed form invites clickjacking), no Referer with a token.
 */
export function setPageHeaders(res: Response): void {
  res.setHeader('Cache-Control', 'no-store');
  res.setHeader('X-Frame-Options', 'DENY');
  res.setHeader('Content-Security-Policy', "frame-ancestors 'none'");
  res.setHeader('Referrer-Policy', 'no-referrer');
}

function renderApplicationView(req: Request, res: Response, name: PageName, locals: PageLocals): Promise<string | undefined> {
  if (!req.app.get('view engine')) return Promise.resolve(undefined);
  return new Promise((resolve, reject) => {
    res.render(`service-auth/${name}`, { ...locals }, (error: Error | null, html?: string) => {
      if (!error) resolve(html);
      else if (/^Failed to lookup view/.test(error.message)) resolve(undefined);
      else reject(error);
    });
  });
}
