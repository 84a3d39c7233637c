/**
 * The smallest application for bench/fresh-instance.ts: ServiceAuth on the given database, one
 * token-guarded route, and the user whose tokens the bench writes. Unlike bench/server.ts it can
 * start any number of times on one database (it seeds nothing but that user, once).
 */
import express from 'express';
import { ServiceAuth } from '../dist/src/index.js';

const app = express();
app.set('SERVICE_AUTH_DATABASE_URL', process.env['BENCH_DATABASE_URL']);
app.set('SERVICE_AUTH_RATE_LIMIT_ENABLED', false);
const auth = new ServiceAuth(app);
auth.logger = { info() {}, warn() {}, error() {} };
app.get('/token', auth.tokenRequired, (_req, res) => void res.end('ok'));
app.use(auth.errorHandler);
await auth.ready;

const email = 'fresh@example.com';
const user =
  (await auth.users.findByEmail(email)) ?? (await auth.users.create({ email, password: 'Correct-Horse-Battery-9' }));

const server = app.listen(0, '127.0.0.1', () => {
  const port = (server.address() as { port: number }).port;
  process.send!({ ready: true, port, userId: user.id, cookie: '', passportToken: '', noteId: 0, accessibleBy: '' });
});

process.on('message', async (message: { id: number; cmd: string }) => {
  if (message.cmd !== 'stop') return;
  server.close();
  server.closeAllConnections();
  await auth.close();
  process.send!({ id: message.id, result: true });
  process.exit(0);
});
