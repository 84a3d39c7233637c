import type { Request } from 'express';
import { AuthError } from '../errors.js';

/**
 * Whether a request may have come from another site, for requests a browser could be tricked into
 * sending with its cookie (and for login, register, forgot and reset, which need no cookie to do
 * harm):
 *
 * - `Sec-Fetch-Site: same-origin` or `none` (typed in, a bookmark) is the browser's own word: it passes.
 * - `cross-site` is refused.
 * - `same-site` (a sibling subdomain, which may be run by someone else) and any value browsers do
 *   not send are held to the Origin check, and must carry an Origin: browsers that send
 *   Sec-Fetch-Site always send Origin on the requests checked here.
 * - Without Sec-Fetch-Site, an Origin that matches neither the request's own origin nor the public
 *   URL's is refused. Requests with neither header are not from a browser that could be tricked
 *   into sending them (or are same-origin GETs turned into forms by very old browsers, which
 *   SameSite=Lax already covers).
 */
export function isCrossSite(req: Request, publicOrigin: string): boolean {
  const site = req.get('sec-fetch-site');
  if (site === 'same-origin' || site === 'none') return false;
  if (site === 'cross-site') return true;
  const origin = req.get('origin');
  if (!origin) return site !== undefined;
  const own = `${req.protocol}://${req.get('host')}`;
  return origin !== own && origin !== publicOrigin;
}

export function assertSameSite(req: Request, publicOrigin: string): void {
  if (isCrossSite(req, publicOrigin)) {
    throw new AuthError('csrf_rejected', 'This request came from another site and was refused');
  }
}

const UNSAFE_METHODS = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);

export function isUnsafeMethod(method: string): boolean {
  return UNSAFE_METHODS.has(method);
}
