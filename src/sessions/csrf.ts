import type { Request } from 'express';
import { AuthError } from '../errors.js';

/**
 * Whether a request comes from another site, by the rule of CONTRACT section 3: browsers that
 * send Sec-Fetch-Site say so directly; otherwise an Origin header that matches neither the
 * request's own origin nor the public URL's marks it. Requests with neither header are not from
 * a browser that could be tricked into sending them (or are same-origin GETs turned into forms by
 * very old browsers, which SameSite=Lax already covers).
 */
export function isCrossSite(req: Request, publicOrigin: string): boolean {
  const site = req.get('sec-fetch-site');
  if (site) return site === 'cross-site';
  const origin = req.get('origin');
  if (!origin) return false;
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
