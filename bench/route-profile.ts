/**
 * A route under the benchmark's load with the server's CPU profiler on: the profile says where
 * the time went, in shares; the server's own CPU clock turns shares into microseconds per request
 * (sampled wall time would count the moments another process had the CPU).
 */
import { readFile } from 'node:fs/promises';
import autocannon from 'autocannon';
import type { AppProcess } from './app-process.js';
import { ProfileReader, type CpuProfile } from './cpuprofile.js';
import type { Headers, LoadSettings } from './load.js';

export interface RouteProfile {
  rps: number;
  requests: number;
  /** Server CPU per request, in microseconds, profiler included. */
  cpuPerRequest: number;
  reader: ProfileReader;
  /** Microseconds of server CPU per request that `micros` of busy samples stand for. */
  perRequest(micros: number): number;
}

export async function profileRoute(
  app: AppProcess,
  settings: Omit<LoadSettings, 'rounds'>,
  url: string,
  headers: Headers,
  path: string,
): Promise<RouteProfile> {
  const load = (duration: number) =>
    autocannon({ url, connections: settings.connections, pipelining: settings.pipelining, duration, headers });
  await load(1); // warm-up: the JIT's work is not the route's
  await app.call({ cmd: 'startProfile', intervalMicros: 250 });
  const cpuBefore = await app.call<number>({ cmd: 'cpuMicros' });
  const result = await load(settings.seconds);
  const cpu = (await app.call<number>({ cmd: 'cpuMicros' })) - cpuBefore;
  await app.call({ cmd: 'stopProfile', path });
  if (result.non2xx || result.errors)
    throw new Error(`${url}: ${result.non2xx} non-2xx responses, ${result.errors} errors`);

  const reader = new ProfileReader(JSON.parse(await readFile(path, 'utf8')) as CpuProfile);
  const requests = result.requests.total;
  const cpuPerRequest = cpu / requests;
  const busy = reader.busyMicros();
  return {
    rps: result.requests.average,
    requests,
    cpuPerRequest,
    reader,
    perRequest: (micros) => (micros / busy) * cpuPerRequest,
  };
}
