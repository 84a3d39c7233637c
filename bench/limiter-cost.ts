/**
 * What each limiter itself costs per request, out of a CPU profile of its route: the samples
 * inside this package's limiter (or express-rate-limit) and whatever it calls (rate-limiter-
 * flexible, req.ip, setHeader, promises), but not the rest of the route. Garbage collection is
 * not in it (the profile cannot say whose garbage it collects).
 */
import { join } from 'node:path';
import type { AppProcess } from './app-process.js';
import { functionOf } from './cpuprofile.js';
import type { LoadSettings } from './load.js';
import { profileRoute, type RouteProfile } from './route-profile.js';

const LIMITER_CODE = /\/rate-limit\/|node_modules\/rate-limiter-flexible\/|node_modules\/express-rate-limit\//;
/**
 * The rest of the route, run inside the limiter's call to next(): Express's router, the handler
 * (in bench/server.ts) and its res.json(). All three, because V8 inlines some of those frames
 * into the limiter's own and the profile then skips them.
 */
const REST_OF_ROUTE = /node_modules\/router\/|node_modules\/express\/lib\/response\.js|\/bench\/server\.ts$/;

export interface LimiterCost {
  /** Microseconds of server CPU per request spent in the limiter. */
  micros: number;
  /** The same, by the function the samples fell in, largest first. */
  byFunction: { name: string; micros: number }[];
  route: RouteProfile;
}

export function limiterCost(route: RouteProfile): LimiterCost {
  const shares = route.reader.inclusiveTime(
    (frame) => LIMITER_CODE.test(frame.url),
    (frame) => REST_OF_ROUTE.test(frame.url),
    functionOf,
  );
  const byFunction = shares.map((share) => ({ name: share.name, micros: route.perRequest(share.micros) }));
  return { micros: byFunction.reduce((sum, share) => sum + share.micros, 0), byFunction, route };
}

/** Profiles `path` on the bench server and returns its limiter's cost per request. */
export async function measureLimiterCost(app: AppProcess, settings: Omit<LoadSettings, 'rounds'>, path: string, profileDir: string): Promise<LimiterCost> {
  const file = join(profileDir, `${path.replace(/\W+/g, '-').replace(/^-/, '')}.cpuprofile`);
  return limiterCost(await profileRoute(app, settings, `${app.base}${path}`, {}, file));
}
