/**
 * The demo application: ServiceAuth mounted on a small Express app with the routes the README's
 * "The demo" lists, and the demo's own MikroORM for its reports and notes. `demo/server.ts`
 * starts it; the CLI can load it with `--app demo/app.ts` (which opens only the package's database).
 */
import express from 'express';
import { routeContext, ServiceAuth } from '../src/index.js';
import { isSelfOrAdmin } from '../policies/is-self-or-admin.js';
import { setPageHeaders } from '../src/http/pages/render.js';
import { HOME_PAGE_CSP, homePage } from './home-page.js';
import { ProjectMember } from './entities/index.js';
import { DemoDatabase } from './orm.js';
import { projectRoutes } from './projects.js';
import { resourceRoutes } from './resources.js';

export const app = express();
// Nothing tells a visitor which framework serves the site.
app.disable('x-powered-by');
// Everyone who registers gets the role member (their own notes, their own email and password),
// unless the environment names other default roles.
app.set('SERVICE_AUTH_DEFAULT_ROLES', process.env['SERVICE_AUTH_DEFAULT_ROLES'] || 'member');
export const auth = new ServiceAuth(app);

// Role rules from policies/*.json: admin manages everything; analyst reads team north's reports
// and includes member; member reads and edits their own notes and changes their own email and password.
// And the project tracker's organization roles (owner, admin, member, viewer), held in an organization.
auth.loadPolicies(new URL('../policies', import.meta.url));
auth.definePolicy('is_self_or_admin', isSelfOrAdmin);

/**
 * The demo's own MikroORM (reports, notes, projects and tasks) on the package's database, opened after the
 * package's: `await database.ready` (as `npm start` does), or by the first request that needs it.
 */
// Once open, it is registered for `req.em` (the project tracker's routes read and write through it):
// a project's members are seen by whoever may read the project (a member row reads only with its
// project), and added by whoever may update it (the route's guard).
export const database = new DemoDatabase(
  () => auth.ready.then(() => auth.config.databaseUrl),
  (orm) => auth.enforce(orm, { public: [ProjectMember] }),
);
// The demo's entities, for `auth policy lint|diff --app`: which subjects have the tenant field, which relations are to-many.
export { ENTITIES as entities } from './entities/index.js';

// With the headers of the package's own pages (no caching, no framing, no Referer, its own CSP).
app.get('/', async (req, res) => {
  setPageHeaders(res, HOME_PAGE_CSP);
  res.setHeader('X-Content-Type-Options', 'nosniff');
  res.type('html').send(homePage({ prefix: auth.config.urlPrefix, user: await auth.currentUser(req) }));
});

app.get('/api/whoami', auth.tokenRequired, (req, res) => {
  res.json({ email: req.user!.email });
});

app.get('/admin', auth.rolesRequired('admin'), (_req, res) => {
  res.json({ ok: true });
});

app.get('/users/:user_id/profile', auth.require({ policy: 'is_self_or_admin' }), (req, res) => {
  res.json({ user_id: routeContext(req.params)['user_id'] });
});

// Every field the body sets must be one the user may update on this user (member: own email and password).
app.patch(
  '/users/:user_id',
  express.json(),
  auth.require({ action: 'update', subject: 'User', fields: 'body' }),
  (req, res) => {
    const body: unknown = req.body;
    const fields = body !== null && typeof body === 'object' && !Array.isArray(body) ? Object.keys(body).sort() : [];
    res.json({ user_id: routeContext(req.params)['user_id'], fields });
  },
);

app.get('/reports/:team', auth.require({ action: 'read', subject: 'Report' }), (req, res) => {
  res.json({ team: req.params['team'] });
});

// GET /reports, POST /notes, GET and PATCH /notes/:id, on the demo's own entities.
app.use(resourceRoutes(auth, database));
// The project tracker under /orgs/:org: projects, their members, and tasks.
app.use(projectRoutes(auth, database));

// After every route: any other path is a 404; the guards' refusals, and any error, as problem
// details or a page.
app.use(auth.notFound);
app.use(auth.errorHandler);

export default app;
