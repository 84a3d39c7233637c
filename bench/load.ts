/**
 * HTTP load through autocannon: throughput of one route, and one route against its baseline.
 */
import autocannon from 'autocannon';
import { median } from './median.js';

export interface LoadSettings {
  /** Seconds per throughput measurement. */
  seconds: number;
  /** Rounds per ratio; the median of the rounds' ratios is reported. */
  rounds: number;
  connections: number;
  /** Requests in flight per connection. */
  pipelining: number;
}

export type Headers = Record<string, string>;

/** The server's CPU time so far, in microseconds. */
export type CpuMeter = () => Promise<number>;

export interface Run {
  rps: number;
  /** Server CPU per request, in microseconds. */
  cpuPerRequest: number;
}

export interface Ratio {
  ratio: number;
  /** Means over the rounds. */
  route: Run;
  base: Run;
}

/** Requests per second over a fixed duration; fails loudly if any request was not a 2xx. */
export async function throughput(settings: LoadSettings, cpu: CpuMeter, url: string, headers: Headers = {}): Promise<Run> {
  const cpuBefore = await cpu();
  const result = await autocannon({ url, connections: settings.connections, pipelining: settings.pipelining, duration: settings.seconds, headers });
  const cpuPerRequest = ((await cpu()) - cpuBefore) / result.requests.total;
  if (result.non2xx || result.errors) throw new Error(`${url}: ${result.non2xx} non-2xx responses, ${result.errors} errors`);
  return { rps: result.requests.average, cpuPerRequest };
}

/**
 * A route against its baseline, in rounds that alternate which goes first (A B, B A, A B …) so
 * that neither drift in machine speed nor running second favours one side; the median of the
 * rounds' ratios is reported, which one disturbed round cannot move.
 */
export async function ratio(settings: LoadSettings, cpu: CpuMeter, base: string, route: string, headers: Headers = {}, baseHeaders: Headers = {}): Promise<Ratio> {
  const ratios: number[] = [];
  const routeRuns: Run[] = [];
  const baseRuns: Run[] = [];
  for (let round = 0; round < settings.rounds; round++) {
    let baseRun: Run;
    let routeRun: Run;
    if (round % 2 === 0) {
      baseRun = await throughput(settings, cpu, base, baseHeaders);
      routeRun = await throughput(settings, cpu, route, headers);
    } else {
      routeRun = await throughput(settings, cpu, route, headers);
      baseRun = await throughput(settings, cpu, base, baseHeaders);
    }
    ratios.push(routeRun.rps / baseRun.rps);
    routeRuns.push(routeRun);
    baseRuns.push(baseRun);
  }
  return { ratio: median(ratios), route: mean(routeRuns), base: mean(baseRuns) };
}

function mean(runs: Run[]): Run {
  const average = (pick: (run: Run) => number) => runs.reduce((sum, run) => sum + pick(run), 0) / runs.length;
  return { rps: average((run) => run.rps), cpuPerRequest: average((run) => run.cpuPerRequest) };
}
