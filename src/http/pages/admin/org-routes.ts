/** The organizations' part of the console: every organization, a page at a time, and one with its members. */
import type { Request } from 'express';
import { reachOf } from '../../../authorization/reach.js';
import type { GuardKit } from '../../endpoints/guard-kit.js';
import { EndpointRouter } from '../../endpoints/mount.js';
import { consolePage, PAGE } from './admin-endpoints.js';
import { orgsPage, orgPage } from './orgs-page.js';
import { orgListQuery, parseQuery } from './query.js';
import { sendAdminPage, type AdminPageBase } from './shell.js';
import type { AdminDeps } from './routes.js';

const PAGE_SIZE = 25;

export const adminOrgs = consolePage({
  path: '/admin/orgs',
  operationId: 'adminOrgs',
  summary: 'The organizations, 25 a page, by slug',
  needs: '`read Organization`',
  section: 'orgs',
  parameters: [PAGE],
});
export const adminOrg = consolePage({
  path: '/admin/orgs/:org',
  operationId: 'adminOrg',
  summary: 'An organization with its members and their roles (the members need `read Membership` on every membership)',
  needs: '`read Organization`',
  section: 'orgs',
  parameters: [
    {
      name: 'org',
      in: 'path',
      required: true,
      description: 'The organization’s id or slug',
      schema: { type: 'string' },
    },
  ],
  refusals: ['not_found'],
});

export function orgRoutes(deps: AdminDeps, kit: GuardKit, base: (req: Request) => AdminPageBase): EndpointRouter {
  const routes = new EndpointRouter(kit);

  routes.on(adminOrgs, async (req, res) => {
    const { page } = parseQuery(orgListQuery, req);
    const orgs = await deps.orgs.list({ offset: (page - 1) * PAGE_SIZE, limit: PAGE_SIZE + 1 });
    sendAdminPage(
      res,
      200,
      orgsPage({ ...base(req), orgs: orgs.slice(0, PAGE_SIZE), page, hasNext: orgs.length > PAGE_SIZE }),
    );
  });

  routes.on(adminOrg, async (req, res) => {
    // An id or a slug, as everywhere; one that names no organization is a 404.
    const name = String(req.params['org']);
    const org = await deps.orgs.get(/^[1-9]\d{0,14}$/.test(name) ? Number(name) : name);
    const page = base(req);
    // The members, for an operator whose rules reach every membership.
    const members = reachOf(req.ability!, 'read', 'Membership') === 'all' ? await deps.orgs.members(org.id) : null;
    sendAdminPage(res, 200, orgPage({ ...page, org, members, linkUsers: page.sections.includes('users') }));
  });

  return routes;
}
