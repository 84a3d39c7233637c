/**
 * Sending a page: one of the built-in pages, or the application's own view
 * `service-auth/<name>` when its view engine has one (same locals), so an application restyles
 * the pages without touching routes.
 */
import type { Request, Response } from 'express';
import { actingAsOf } from '../requests/impersonation-limits.js';
import { APPLICATION_VIEW_CSP, BUILT_IN_CSP } from './assets.js';
import type { PageLocalsByName, PageName } from './index.js';
import { withImpersonationBanner } from './layout.js';

/**
 * While the viewer acts as another user, every built-in page carries the banner (layout.ts), and
 * an application's own view gets `impersonation: { email, impersonator, stopAction }` to show its own.
 */
export async function sendPage<N extends PageName>(
  req: Request,
  res: Response,
  status: number,
  name: N,
  locals: PageLocalsByName[N],
): Promise<void> {
  const acting = actingAsOf(req);
  const banner = acting && {
    email: acting.user.email,
    impersonator: acting.impersonator.email,
    stopAction: acting.stopAction,
  };
  const own = await renderApplicationView(req, res, name, banner ? { ...locals, impersonation: banner } : locals);
  const html = own ?? withImpersonationBanner(await renderBuiltIn(name, locals), locals.texts, banner);
  res.status(status);
  setPageHeaders(res, own === undefined ? BUILT_IN_CSP : APPLICATION_VIEW_CSP);
  res.type('html').send(html);
}

/**
 * The built-in pages' modules load with the first page sent, not with the package (whose error
 * middleware sends pages too): an application's own views, and code, never need them.
 */
async function renderBuiltIn<N extends PageName>(name: N, locals: PageLocalsByName[N]): Promise<string> {
  const { PAGES } = await import('./index.js');
  const render: (locals: PageLocalsByName[N]) => string = PAGES[name];
  return render(locals);
}

/**
 * For every page: out of caches (a page may carry a reset token or a new API token), never framed
 * by another site (a framed form invites clickjacking), no Referer with a token. The built-in pages
 * also allow only their own inline style and script (see assets.ts); an application's own
 * templates keep only the framing rule, and may add their own policy.
 */
export function setPageHeaders(res: Response, contentSecurityPolicy: string): void {
  res.setHeader('Cache-Control', 'no-store');
  res.setHeader('X-Frame-Options', 'DENY');
  res.setHeader('Content-Security-Policy', contentSecurityPolicy);
  res.setHeader('Referrer-Policy', 'no-referrer');
}

function renderApplicationView(
  req: Request,
  res: Response,
  name: PageName,
  locals: object,
): Promise<string | undefined> {
  if (!req.app.get('view engine')) return Promise.resolve(undefined);
  return new Promise((resolve, reject) => {
    res.render(`service-auth/${name}`, { ...locals }, (error: Error | null, html?: string) => {
      if (!error) resolve(html);
      else if (/^Failed to lookup view/.test(error.message)) resolve(undefined);
      else reject(error);
    });
  });
}
