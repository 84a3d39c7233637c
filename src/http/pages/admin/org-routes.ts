/** The organizations' part of the console: every organization, a page at a time, and one with its members. */
import { Router, type Request, type RequestHandler } from 'express';
import { reachOf } from '../../../authorization/reach.js';
import { orgsPage, orgPage } from './orgs-page.js';
import { orgListQuery, parseQuery } from './query.js';
import { sendAdminPage, type AdminPageBase } from './shell.js';
import type { AdminDeps } from './routes.js';

const PAGE_SIZE = 25;

export function orgRoutes(deps: AdminDeps, gate: RequestHandler[], base: (req: Request) => AdminPageBase): Router {
  const router = Router();

  router.get('/admin/orgs', ...gate, async (req, res) => {
    const { page } = parseQuery(orgListQuery, req);
    const orgs = await deps.orgs.list({ offset: (page - 1) * PAGE_SIZE, limit: PAGE_SIZE + 1 });
    sendAdminPage(res, 200, orgsPage({ ...base(req), orgs: orgs.slice(0, PAGE_SIZE), page, hasNext: orgs.length > PAGE_SIZE }));
  });

  router.get('/admin/orgs/:org', ...gate, async (req, res) => {
    // An id or a slug, as everywhere; one that names no organization is a 404.
    const name = String(req.params['org']);
    const org = await deps.orgs.get(/^[1-9]\d{0,14}$/.test(name) ? Number(name) : name);
    const page = base(req);
    // The members, for an operator whose rules reach every membership.
    const members = reachOf(req.ability!, 'read', 'Membership') === 'all' ? await deps.orgs.members(org.id) : null;
    sendAdminPage(res, 200, orgPage({ ...page, org, members, linkUsers: page.sections.includes('users') }));
  });

  return router;
}
