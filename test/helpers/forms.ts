/** Requests as a browser sends them from the built-in pages: urlencoded, preferring HTML, same-site. */
import { createHash } from 'node:crypto';
import type { Express } from 'express';
import request from 'supertest';

/** Chromium's Accept header for a navigation. */
export const HTML = 'text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8';

/** A form post from one of our pages; add `.set('Cookie', …)` for a logged-in browser. */
export function formPost(app: Express, path: string, body: Record<string, string>): request.Test {
  return request(app)
    .post(`/service-auth${path}`)
    .set('Accept', HTML)
    .set('Sec-Fetch-Site', 'same-origin')
    .type('form')
    .send(body);
}

/** A page as a browser navigates to it. */
export function pageGet(app: Express, path: string): request.Test {
  return request(app).get(`/service-auth${path}`).set('Accept', HTML);
}

/** The CSP source that allows an inline element with exactly this content. */
export function cspHash(content: string): string {
  return `'sha256-${createHash('sha256').update(content, 'utf8').digest('base64')}'`;
}

/** The opening tag of the element with this id, to look at its attributes. */
export function tagWithId(html: string, id: string): string {
  const tag = new RegExp(`<[a-z]+ [^>]*\\bid="${id}"[^>]*>`).exec(html)?.[0];
  if (!tag) throw new Error(`no element with id="${id}" in:\n${html}`);
  return tag;
}
