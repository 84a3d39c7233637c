/**
 * `POST /impersonation/stop`: the banner's button (layout.ts). A browser's form only; it stops the
 * impersonation and goes to the application's home page as the impersonator again. The guard's
 * same-site rule protects it from other sites, as every form of the pages.
 */
import type { Impersonation } from '../../impersonation/impersonation.js';
import { OWN_SESSION } from '../api/impersonation.js';
import { endpoint } from '../endpoints/endpoint.js';
import type { GuardKit } from '../endpoints/guard-kit.js';
import { LOGIN, SESSION } from '../endpoints/guards.js';
import { EndpointRouter } from '../endpoints/mount.js';
import { sessionCookieHeader } from '../openapi/operations.js';
import { redirect } from '../openapi/responses.js';

export const stopImpersonationForm = endpoint({
  method: 'post',
  path: '/impersonation/stop',
  operationId: 'stopImpersonationForm',
  summary: 'Stop acting as another user (the banner’s button)',
  description: [
    'As `DELETE /api/impersonation`, which a form cannot send; answered with a 303 to the application’s home page,',
    '`/`. It takes only a browser’s form (urlencoded, preferring HTML, without Authorization): anything else is the',
    '404 of paths nobody serves.',
  ].join(' '),
  tags: ['pages'],
  guards: [LOGIN],
  security: SESSION,
  formsOnly: true,
  responses: (context) => ({
    303: redirect('Stopped: to the home page as the impersonator', sessionCookieHeader(context, OWN_SESSION)),
  }),
  refusals: ['not_found'],
});

export function impersonationPages(impersonation: Pick<Impersonation, 'stop'>, kit: GuardKit): EndpointRouter {
  return new EndpointRouter(kit).on(stopImpersonationForm, async (req, res) => {
    await impersonation.stop(req, res);
    res.redirect(303, '/');
  });
}
