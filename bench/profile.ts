/**
 * Where a route's server time goes: `npx tsx bench/profile.ts [--seconds N] /route …` (after
 * `npm run build`) loads each route of bench/server.ts in turn with the benchmark's load, takes a
 * CPU profile of the server during the load, and prints the server CPU per request, by package
 * and by function (self time). The profiles stay in bench/profiles/ (ignored by git), for Chrome
 * DevTools' Performance panel.
 *
 * Headers for guarded routes: `/token` gets a fresh bearer token, `/session` and `/policy/…` the
 * bench user's session cookie (so do `/note…`, `/task…` and `/orgs/…`), `/passport` the Passport token.
 */
import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { AppProcess } from './app-process.js';
import { functionOf, packageOf } from './cpuprofile.js';
import type { Headers } from './load.js';
import { profileRoute } from './route-profile.js';

const { values, positionals } = parseArgs({
  allowPositionals: true,
  options: {
    seconds: { type: 'string', default: '5' },
    top: { type: 'string', default: '15' },
    pipelining: { type: 'string', default: '10' },
  },
});
const settings = { seconds: Number(values.seconds), connections: 10, pipelining: Number(values.pipelining) };
const top = Number(values.top);
const routes = positionals.length ? positionals : ['/plain', '/limited', '/express-rate-limit'];

const profiles = new URL('./profiles/', import.meta.url).pathname;
await mkdir(profiles, { recursive: true });
const dir = await mkdtemp(join(tmpdir(), 'service-auth-profile-'));
const app = await AppProcess.start({ databaseUrl: `sqlite:${join(dir, 'bench.sqlite')}` });
const µs = (n: number) => `${n.toFixed(2)} µs`.padStart(10);

try {
  const [token] = await app.call<string[]>({ cmd: 'createTokens', count: 1 });
  const headersFor = (route: string): Headers => {
    if (route.startsWith('/token')) return { Authorization: `Bearer ${token}` };
    if (route.startsWith('/passport')) return { Authorization: `Bearer ${app.ready.passportToken}` };
    if (['/session', '/policy', '/note', '/task', '/orgs/'].some((prefix) => route.startsWith(prefix)))
      return { Cookie: app.ready.cookie };
    return {};
  };
  for (const route of routes) {
    const path = join(profiles, `${route.replace(/\W+/g, '_').replace(/^_|_$/g, '') || 'root'}.cpuprofile`);
    const profile = await profileRoute(app, settings, `${app.base}${route}`, headersFor(route), path);
    console.log(
      `\n${route}: ${Math.round(profile.rps)} req/s, ${µs(profile.cpuPerRequest).trim()} of server CPU per request (${path})`,
    );
    console.log('  by package (self time):');
    for (const share of profile.reader.selfTime(packageOf).slice(0, top))
      console.log(`    ${µs(profile.perRequest(share.micros))}  ${share.name}`);
    console.log('  by function (self time):');
    for (const share of profile.reader.selfTime(functionOf).slice(0, top))
      console.log(`    ${µs(profile.perRequest(share.micros))}  ${share.name}`);
  }
} finally {
  await app.stop();
  await rm(dir, { recursive: true, force: true });
}
