/**
 * `POST /impersonation/stop`: the banner's button (layout.ts). A browser's form only; it stops the
 * impersonation and goes to the application's home page as the impersonator again. The guard's
 * same-site rule protects it from other sites, as every form of the pages.
 */
import { Router, type RequestHandler } from 'express';
import type { Impersonation } from '../../impersonation/impersonation.js';
import { browserFormsOnly } from '../requests/negotiation.js';

export function impersonationPages(impersonation: Pick<Impersonation, 'stop'>, loginRequired: RequestHandler): Router {
  const router = Router();
  router.post('/impersonation/stop', browserFormsOnly, loginRequired, async (req, res) => {
    await impersonation.stop(req, res);
    res.redirect(303, '/');
  });
  return router;
}
