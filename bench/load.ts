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
export async function throughput(
  settings: LoadSettings,
  cpu: CpuMeter,
  url: string,
  headers: Headers = {},
): Promise<Run> {
  const cpuBefore = await cpu();
  const result = await autocannon({
    url,
    connections: settings.connections,
    pipelining: settings.pipelining,
    duration: settings.seconds,
    headers,
  });
  const cpuPerRequest = ((await cpu()) - cpuBefore) / result.requests.total;
  if (result.non2xx || result.errors)
    throw new Error(`${url}: ${result.non2xx} non-2xx responses, ${result.errors} errors`);
  return { rps: result.requests.average, cpuPerRequest };
}

/**
 * A route against its baseline, in rounds that alternate which goes first (A B, B A, A B …) so
 * that neither drift in machine speed nor running second favours one side; the median of the
 * rounds' ratios is reported, which one disturbed round cannot move.
 */
export async function ratio(
  settings: LoadSettings,
  cpu: CpuMeter,
  base: string,
  route: string,
  headers: Headers = {},
  baseHeaders: Headers = {},
): Promise<Ratio> {
  const [result] = await ratios(settings, cpu, { url: base, headers: baseHeaders }, [{ url: route, headers }]);
  return result!;
}

export interface Target {
  url: string;
  headers?: Headers;
}

/**
 * Several routes against one baseline, measured in the same rounds so that their ratios can be
 * compared with each other; each round starts one place further along the list (B X Y, X Y B,
 * Y B X …), so that none always runs first or last. A baseline of several targets (the same route
 * registered before and after the measured ones, say) counts as their mean throughput per round.
 */
export async function ratios(
  settings: LoadSettings,
  cpu: CpuMeter,
  base: Target | Target[],
  routes: Target[],
): Promise<Ratio[]> {
  const bases = Array.isArray(base) ? base : [base];
  const targets = [...bases, ...routes];
  const runs: Run[][] = targets.map(() => []);
  for (let round = 0; round < settings.rounds; round++) {
    for (let step = 0; step < targets.length; step++) {
      const index = (round + step) % targets.length;
      runs[index]!.push(await throughput(settings, cpu, targets[index]!.url, targets[index]!.headers));
    }
  }
  const baseRuns = Array.from({ length: settings.rounds }, (_, round) =>
    mean(runs.slice(0, bases.length).map((r) => r[round]!)),
  );
  return runs.slice(bases.length).map((route) => ({
    ratio: median(route.map((run, round) => run.rps / baseRuns[round]!.rps)),
    route: mean(route),
    base: mean(baseRuns),
  }));
}

function mean(runs: Run[]): Run {
  const average = (pick: (run: Run) => number) => runs.reduce((sum, run) => sum + pick(run), 0) / runs.length;
  return { rps: average((run) => run.rps), cpuPerRequest: average((run) => run.cpuPerRequest) };
}
