/**
 * What a middleware alone costs per request: called in-process, on a fresh request and response
 * built as Express builds them, until it calls next(); the same loop with an empty middleware is
 * subtracted. Run inside the bench server, so that the conditions are the served routes': the
 * same middleware instances, the same warmed-up code, and MikroORM's AsyncLocalStorage active
 * (which makes every promise pay async-hook bookkeeping).
 */
import { IncomingMessage, ServerResponse } from 'node:http';
import type { Express, RequestHandler } from 'express';
import { median } from './median.js';

const CLIENT = { remoteAddress: '127.0.0.1', readableHighWaterMark: 16_384 };
const RAW_HEADERS = ['Host', '127.0.0.1', 'Connection', 'keep-alive', 'User-Agent', 'autocannon'];

/** Microseconds of CPU per call of each middleware beyond an empty one: median of `rounds`. */
export async function middlewareCosts(
  app: Express,
  middlewares: Record<string, RequestHandler>,
  calls: number,
  rounds: number,
): Promise<Record<string, number>> {
  const empty: RequestHandler = (_req, _res, next) => next();
  const samples: Record<string, number[]> = Object.fromEntries(Object.keys(middlewares).map((name) => [name, []]));
  for (let round = 0; round < rounds; round++) {
    const floor = await cpuPerCall(app, empty, calls);
    // Alternate the order, as the throughput rounds do, so that neither side always runs first.
    const names = round % 2 ? Object.keys(middlewares).reverse() : Object.keys(middlewares);
    for (const name of names) samples[name]!.push((await cpuPerCall(app, middlewares[name]!, calls)) - floor);
  }
  return Object.fromEntries(Object.entries(samples).map(([name, values]) => [name, median(values)]));
}

async function cpuPerCall(app: Express, middleware: RequestHandler, calls: number): Promise<number> {
  const started = process.cpuUsage();
  for (let i = 0; i < calls; i++) {
    const [req, res] = freshExchange(app);
    await new Promise<void>((resolve, reject) =>
      middleware(req as never, res as never, (error?: unknown) => (error ? reject(error) : resolve())),
    );
  }
  const { user, system } = process.cpuUsage(started);
  return (user + system) / calls;
}

/** A request and its response as Express's app.handle() leaves them for the first middleware. */
function freshExchange(app: Express): [IncomingMessage, ServerResponse] {
  const req = new IncomingMessage(CLIENT as never);
  req.method = 'GET';
  req.url = '/limited';
  req.rawHeaders = RAW_HEADERS;
  const res = new ServerResponse(req);
  Object.assign(req, { res });
  Object.assign(res, { req });
  Object.setPrototypeOf(req, app.request);
  Object.setPrototypeOf(res, app.response);
  return [req, res];
}
