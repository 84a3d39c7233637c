/**
 * The demo application: ServiceAuth mounted on a small Express app with the routes of CONTRACT
 * section 11. `demo/server.ts` starts it; the CLI can load it with `--app demo/app.ts`.
 */
import express from 'express';
import { routeContext, ServiceAuth } from '../src/index.js';
import { isSelfOrAdmin } from '../policies/is-self-or-admin.js';
import { homePage } from './home-page.js';

export const app = express();
export const auth = new ServiceAuth(app);

// Role rules from policies/*.json (admin manages everything; analyst reads team north's reports).
auth.loadPolicies(new URL('../policies', import.meta.url));
auth.definePolicy('is_self_or_admin', isSelfOrAdmin);

app.get('/', async (req, res) => {
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

app.get('/reports/:team', auth.require({ action: 'read', subject: 'Report' }), (req, res) => {
  res.json({ team: req.params['team'] });
});

export default app;
