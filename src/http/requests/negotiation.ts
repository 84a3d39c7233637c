/**
 * Telling people with browsers from programs. The same URLs serve both: a form post from a browser
 * (urlencoded, preferring HTML) or a browser's navigation gets pages, and everything else JSON.
 */
import type { Request, RequestHandler } from 'express';
import { presentedToken } from '../../authentication/credentials.js';

/** Accept prefers HTML to JSON: a navigation, not an API call (curl's `*\/*` counts as JSON). */
export function prefersHtml(req: Request): boolean {
  return req.accepts(['application/json', 'text/html']) === 'text/html';
}

/** A form a browser sent from a page (which never carries a bearer token: that is a program). */
export function isBrowserForm(req: Request): boolean {
  return Boolean(req.is('application/x-www-form-urlencoded')) && prefersHtml(req) && presentedToken(req) === null;
}

/**
 * First on a page route that shares its path with a JSON endpoint: a request that is not a
 * browser's form goes on to the next route of that path (the JSON API's).
 */
export const browserFormsOnly: RequestHandler = (req, _res, next) => next(isBrowserForm(req) ? undefined : 'route');

/** A browser opening a page (typed in, a link, a redirect): GET or HEAD, preferring HTML. */
export function isNavigation(req: Request): boolean {
  return (req.method === 'GET' || req.method === 'HEAD') && prefersHtml(req);
}

/** Whether a person will read the answer: a navigation, or a form sent from a page. */
export function wantsPage(req: Request): boolean {
  return isNavigation(req) || isBrowserForm(req);
}

/**
 * A path on this site to continue to, or `fallback`. Refuses anything a browser could read as
 * another origin: `//host`, `/\host`, schemes, and control characters that some browsers strip.
 */
export function safeNext(value: unknown, fallback = '/'): string {
  if (typeof value !== 'string' || value.length > 2048) return fallback;
  if (!value.startsWith('/') || value.startsWith('//') || value.startsWith('/\\')) return fallback;
  if (/[\u0000-\u001f\u007f\\]/.test(value) || !value.isWellFormed()) return fallback;
  return value;
}

/** `safeNext`, or null when there is no same-site path to go on to. */
export function optionalNext(value: unknown): string | null {
  return safeNext(value, '') || null;
}
