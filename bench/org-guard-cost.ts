/**
 * What the guards of a route in an organization cost per request, in process (no HTTP):
 * `npx tsx bench/org-guard-cost.ts` (after `npm run build`). The bench's org routes
 * (bench/org-routes.ts) on SQLite in memory; each chain of middlewares is called on fresh
 * requests built as Express builds them (bench/middleware-cost.ts) until the last calls next();
 * CPU per request beyond an empty chain, median of the rounds. With `--cpu-prof` on node, the
 * profile is of these calls alone, without Express's or the socket's work around them.
 */
import { IncomingMessage, ServerResponse } from 'node:http';
import express, { type RequestHandler } from 'express';
import { ServiceAuth } from '../dist/src/index.js';
import { Session } from 'node:inspector/promises';
import { functionOf, ProfileReader, type CpuProfile } from './cpuprofile.js';
import { median } from './median.js';
import { BENCH_ORG, ORG_READER, orgRoutes } from './org-routes.js';

const CALLS = Number(process.env['CALLS'] || 50_000);
const ROUNDS = Number(process.env['ROUNDS'] || 7);
const PASSWORD = 'Bench-Password-12345';

const app = express();
app.set('SERVICE_AUTH_DATABASE_URL', 'sqlite::memory:');
app.set('SERVICE_AUTH_RATE_LIMIT_ENABLED', false);
const auth = new ServiceAuth(app);
auth.logger = { info() {}, warn() {}, error() {} };
orgRoutes(app, auth);
await auth.ready;
const user = await auth.users.create({ email: 'bench@example.com', password: PASSWORD });
const other = await auth.users.create({ email: 'others@example.com', password: PASSWORD });
await auth.orgs.create({ name: 'Bench', slug: BENCH_ORG, owner: other.id });
await auth.orgs.addMember(BENCH_ORG, user.id, [ORG_READER]);
const server = app.listen(0, '127.0.0.1');
await new Promise((resolve) => server.once('listening', resolve));
const { port } = server.address() as { port: number };
const login = await fetch(`http://127.0.0.1:${port}/service-auth/login`, {
  method: 'POST',
  headers: { 'Content-Type': 'application/json' },
  body: JSON.stringify({ email: 'bench@example.com', password: PASSWORD }),
});
const cookie = login.headers.get('set-cookie')!.split(';')[0]!;
server.close();

const CLIENT = { remoteAddress: '127.0.0.1', readableHighWaterMark: 16_384 };
const RAW_HEADERS = ['Host', '127.0.0.1', 'Connection', 'keep-alive', 'Cookie', cookie];

function freshExchange(): [IncomingMessage, ServerResponse] {
  const req = new IncomingMessage(CLIENT as never);
  req.method = 'GET';
  req.url = `/orgs/${BENCH_ORG}/guarded`;
  req.rawHeaders = RAW_HEADERS;
  req.headers = { host: '127.0.0.1', connection: 'keep-alive', cookie };
  const res = new ServerResponse(req);
  Object.assign(req, { res, params: { org: BENCH_ORG } });
  Object.assign(res, { req });
  Object.setPrototypeOf(req, app.request);
  Object.setPrototypeOf(res, app.response);
  return [req, res];
}

/** Runs the chain on a fresh request; resolves when the last middleware calls next(). */
function run(chain: RequestHandler[]): Promise<void> {
  const [req, res] = freshExchange();
  return new Promise((resolve, reject) => {
    let at = 0;
    const next = (error?: unknown): void => {
      if (error) return reject(error instanceof Error ? error : new Error(String(error)));
      const middleware = chain[at++];
      if (!middleware) return resolve();
      middleware(req as never, res as never, next);
    };
    next();
  });
}

async function cpuPerCall(chain: RequestHandler[]): Promise<number> {
  const started = process.cpuUsage();
  for (let i = 0; i < CALLS; i++) await run(chain);
  const { user: u, system } = process.cpuUsage(started);
  return (u + system) / CALLS;
}

const chains: Record<string, RequestHandler[]> = {
  loginRequired: [auth.loginRequired],
  orgRequired: [auth.orgRequired()],
  'orgRequired + require': [auth.orgRequired(), auth.require({ action: 'read', subject: 'Project' })],
  ...(process.env['MORE'] && { 'orgRequired + login': [auth.orgRequired(), auth.loginRequired] }),
};
const empty: RequestHandler[] = [];
for (const chain of Object.values(chains)) await cpuPerCall(chain); // warm-up
const samples: Record<string, number[]> = Object.fromEntries(Object.keys(chains).map((name) => [name, []]));
const floors: number[] = [];
for (let round = 0; round < ROUNDS; round++) {
  const floor = await cpuPerCall(empty);
  floors.push(floor);
  const names = round % 2 ? Object.keys(chains).reverse() : Object.keys(chains);
  for (const name of names) samples[name]!.push((await cpuPerCall(chains[name]!)) - floor);
}
console.log(
  `µs of CPU per request beyond an empty chain (${median(floors).toFixed(2)} µs), median of ${ROUNDS} rounds of ${CALLS.toLocaleString('en')}:`,
);
for (const [name, values] of Object.entries(samples))
  console.log(`  ${name.padEnd(24)} ${median(values).toFixed(2)} µs  (${values.map((v) => v.toFixed(1)).join(' ')})`);
if (process.env['PROFILE']) {
  // Where the guarded chain's time goes: a CPU profile of its calls alone, self time by function.
  const profiler = new Session();
  profiler.connect();
  await profiler.post('Profiler.enable');
  await profiler.post('Profiler.setSamplingInterval', { interval: 100 });
  await profiler.post('Profiler.start');
  const guarded = chains[process.env['PROFILE']] ?? chains['orgRequired + require']!;
  const started = process.cpuUsage();
  for (let i = 0; i < CALLS * 2; i++) await run(guarded);
  const { user: u, system } = process.cpuUsage(started);
  const { profile } = await profiler.post('Profiler.stop');
  const reader = new ProfileReader(profile as CpuProfile);
  const perCall = (u + system) / (CALLS * 2);
  const busy = reader.busyMicros();
  console.log(`profile: ${perCall.toFixed(2)} µs per call; self time by function, µs per call:`);
  for (const share of reader.selfTime(functionOf).slice(0, Number(process.env['TOP'] || 40)))
    console.log(`  ${((share.micros / busy) * perCall).toFixed(2).padStart(7)}  ${share.name}`);
}
await auth.close();
