/**
 * The application `npm run bench` measures, in its own process so that the load generator does
 * not share its event loop. The routes differ only in their guard; every handler answers the same
 * small JSON, except the note routes of bench/notes.ts, which answer rows of their own table.
 * Commands arrive over IPC from bench/index.ts.
 */
import { createHash, pbkdf2, randomBytes } from 'node:crypto';
import { promisify } from 'node:util';
import type { EntityManager as SqlEntityManager } from '@mikro-orm/knex';
import express from 'express';
import { rateLimit } from 'express-rate-limit';
// The package as users get it: the build in dist/ (`npm run bench` builds first), not the
// TypeScript sources through tsx, whose transform adds work of its own to every closure.
import { ServiceAuth } from '../dist/src/index.js';
import { createLimiter } from '../dist/src/rate-limit/limiter.js';
import { limitPerClient } from '../dist/src/rate-limit/middleware.js';
import { parseRate } from '../dist/src/config/rates.js';
import { partsOf } from '../dist/src/instance-registry.js';
import { openOrm } from '../dist/src/storage/orm.js';
import { middlewareCosts } from './middleware-cost.js';
import { writeCredentials } from './credential-rows.js';
import { fillTokens } from './filler-tokens.js';
import { benchNotes, NOTE_READER } from './notes.js';
import { BENCH_ORG, ORG_READER, orgRoutes, writeOrgMembers } from './org-routes.js';
import { passportRoute } from './passport-bearer.js';
import { startProfile, stopProfile } from './profile-window.js';
import { benchTasks, TASK_READER } from './tasks.js';

const databaseUrl = process.env['BENCH_DATABASE_URL']!;
const PASSWORD = 'Bench-Password-12345';

const app = express();
app.set('SERVICE_AUTH_DATABASE_URL', databaseUrl);
app.set('SERVICE_AUTH_RATE_LIMIT_ENABLED', false); // throughput figures, and the attack "with the failure limit off"
app.set('SERVICE_AUTH_MAX_TOKENS_PER_USER', 1000);
if (process.env['BENCH_TRUST_PROXY']) app.set('trust proxy', true); // bench/forged-flood.ts plays 20 clients from one machine
const auth = new ServiceAuth(app);
auth.logger = { info() {}, warn() {}, error() {} };
auth.definePolicy('is_self', (user, { user_id }) => user.id === user_id);

const ok = (_req: express.Request, res: express.Response) => {
  res.json({ ok: true });
};
const NEVER = parseRate('1000000000 per minute');

app.get('/plain', ok);
app.get('/open/:user_id', ok); // the policy route's shape, unguarded
app.get('/token', auth.tokenRequired, ok);
app.get('/session', auth.loginRequired, ok);
app.get('/policy/:user_id', auth.require({ policy: 'is_self' }), ok);
// What any limiter's place in the route costs before it does anything: Express's price for one
// more middleware. Against it, express-rate-limit's route shows the best score a limiter can get.
app.get('/empty-middleware', (_req, _res, next) => next(), ok);
// The two limiters on the same route shape, with the same limit and key (the client's IP), and the
// same IETF RateLimit-* headers (express-rate-limit's draft-6 adds RateLimit-Policy).
const ourLimiter = limitPerClient(createLimiter({ name: 'bench', rate: NEVER }), 'requests');
const expressRateLimit = rateLimit({
  windowMs: 60_000,
  limit: NEVER.points,
  standardHeaders: 'draft-6',
  legacyHeaders: false,
});
app.get('/limited', ourLimiter, ok);
app.get('/express-rate-limit', expressRateLimit, ok);

await auth.ready;
const orm = await openOrm(databaseUrl, { migrate: false });
// The usual hand-rolled alternative to the package's tokens (bench/passport-bearer.ts).
const passportLookups = passportRoute(app, orm, ok);
const notes = await benchNotes(app, auth, databaseUrl);
const tasks = await benchTasks(app, auth, databaseUrl);
orgRoutes(app, auth);
// As an application mounts it: the guards' refusals (the bogus tokens of the attack) answered here.
app.use(auth.errorHandler);

// The note and task routes' roles (bench/notes.ts, bench/tasks.ts). The other guarded routes build no ability, so they cost them nothing.
const user = await auth.users.create({
  email: 'bench@example.com',
  password: PASSWORD,
  roles: [NOTE_READER, TASK_READER],
});
const others = await auth.users.create({ email: 'others@example.com', password: PASSWORD });
const passportToken = randomBytes(32).toString('hex');
await auth.tokens.importLegacy(user.id, {
  sha256: createHash('sha256').update(passportToken).digest('hex'),
  name: 'passport',
});
const [{ noteId, accessibleBy }, { taskId, accessibleTasks }] = [await notes.seed(user), await tasks.seed(user)];
// The organization of the bench user's org routes (bench/orgs.ts): `others` owns it, the bench user reads its projects.
await auth.orgs.create({ name: 'Bench', slug: BENCH_ORG, owner: others.id });
await auth.orgs.addMember(BENCH_ORG, user.id, [ORG_READER]);

// Every statement the package's own database connection runs (the change feed, rows read for
// credentials, last_used_at writes; bench/credential-scale.ts), and the audit log's apart (bench/audit-flood.ts).
let statements = 0;
let auditStatements = 0;
// The package's EntityManager is MikroORM's SQL one; its published declaration is opaque (src/storage/orm.ts).
((await partsOf(auth).storage.em()) as unknown as SqlEntityManager)
  .getConnection()
  .getKnex()
  .on('query', (query: { sql: string }) => {
    statements++;
    if (/auth_events|service_auth_append_events/.test(query.sql)) auditStatements++;
  });

const server = app.listen(0, '127.0.0.1', async () => {
  const port = (server.address() as { port: number }).port;
  const login = await fetch(`http://127.0.0.1:${port}/service-auth/login`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json' },
    body: JSON.stringify({ email: 'bench@example.com', password: PASSWORD }),
  });
  const cookie = login.headers.get('set-cookie')!.split(';')[0]!;
  process.send!({
    ready: true,
    port,
    cookie,
    userId: user.id,
    passportToken,
    noteId,
    accessibleBy,
    taskId,
    accessibleTasks,
  });
});

const pbkdf2Async = promisify(pbkdf2);

type Command =
  | { id: number; cmd: 'createTokens'; count: number; scopes?: string[] }
  | { id: number; cmd: 'bareDerivation' }
  | { id: number; cmd: 'fill'; total: number }
  | { id: number; cmd: 'cpuMicros' }
  | { id: number; cmd: 'credentials'; count: number }
  | { id: number; cmd: 'orgMembers'; orgs: number; members: number }
  | { id: number; cmd: 'statements' }
  | { id: number; cmd: 'auditStatements' }
  | { id: number; cmd: 'limiterCosts'; calls: number; rounds: number }
  | { id: number; cmd: 'startProfile'; intervalMicros?: number }
  | { id: number; cmd: 'stopProfile'; path: string }
  | { id: number; cmd: 'stop' };

process.on('message', async (message: Command) => {
  const reply = (result: unknown) => process.send!({ id: message.id, result });
  switch (message.cmd) {
    case 'createTokens': {
      const tokens = [];
      for (let i = 0; i < message.count; i++)
        tokens.push((await auth.tokens.create(user.id, { name: `bench ${i}`, scopes: message.scopes })).token);
      reply(tokens);
      break;
    }
    case 'bareDerivation': {
      // The same work the verifier does: PBKDF2-HMAC-SHA256, 600,000 iterations, 32-byte salt.
      const started = performance.now();
      await pbkdf2Async('sat_x_y', randomBytes(32), 600_000, 32, 'sha256');
      reply(performance.now() - started);
      break;
    }
    case 'fill':
      // Other tokens in the table (bench/filler-tokens.ts).
      reply(await fillTokens(orm.em.fork(), others.id, message.total));
      break;
    case 'credentials':
      // The figures they serve count statements, not derivations (bench/credential-rows.ts).
      reply(await writeCredentials(orm.em.fork(), user.id, message.count));
      break;
    case 'orgMembers':
      reply({ members: await writeOrgMembers(orm.em.fork(), message.orgs, message.members) });
      break;
    case 'statements':
      reply(statements);
      break;
    case 'auditStatements':
      reply(auditStatements);
      break;
    case 'cpuMicros': {
      // The CPU this process has used (user and system): per request, a cost that, unlike
      // throughput, does not depend on how much of the machine the process was given.
      const { user, system } = process.cpuUsage();
      reply(user + system);
      break;
    }
    case 'limiterCosts':
      reply(await middlewareCosts(app, { ours: ourLimiter, expressRateLimit }, message.calls, message.rounds));
      break;
    case 'startProfile':
      // Of just the window bench/profile.ts loads a route in (bench/profile-window.ts).
      await startProfile(message.intervalMicros);
      reply(true);
      break;
    case 'stopProfile':
      await stopProfile(message.path);
      reply(message.path);
      break;
    case 'stop': {
      server.close();
      server.closeAllConnections();
      await passportLookups.settled();
      await auth.close();
      await orm.close();
      await Promise.all([notes.close(), tasks.close()]);
      reply(true);
      process.exit(0);
    }
  }
});
