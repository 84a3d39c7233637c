/**
 * The demo application: ServiceAuth mounted on a small Express app with the routes of CONTRACT
 * section 11. `demo/server.ts` starts it; the CLI can load it with `--app demo/app.ts`.
 */
import express from 'express';
import { ServiceAuth } from '../src/index.js';
import { homePage } from './home-page.js';

export const app = express();
export const auth = new ServiceAuth(app);

app.get('/', async (req, res) => {
  res.type('html').send(homePage({ prefix: auth.config.urlPrefix, user: await auth.currentUser(req) }));
});

export default app;
