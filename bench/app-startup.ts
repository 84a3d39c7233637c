/**
 * An application's cold start (docs/performance.md#cold-start), against the floor of what such an
 * application loads anyway, Express and MikroORM: each side a fresh process of plain Node
 * (bench/cold-start.mjs), RUNS runs of each, alternating sides so that what else the shared
 * machine does weighs on both alike. Each figure is the median of the pairs' ratios of CPU time
 * (what the start cost the process, which other work on the machine moves far less than the
 * time it took: on a machine shared with other work, over five runs of the same build, the
 * import's time ratio moved from 1.05 to 1.41, its CPU ratio from 1.34 to 1.46); the time is in
 * the detail.
 *
 * - `import 'service-auth'` (with Express) ÷ importing Express, @mikro-orm/core and @mikro-orm/knex;
 * - process start to the first answer from a route behind `auth.loginRequired` with a session
 *   cookie, on an SQLite file with an up-to-date schema ÷ an Express + MikroORM application answering
 *   the same route with the user's row.
 *
 * The details add the absolute medians, and the modules each side loaded (one more run each, with
 * the module trace of the tests): a count, which the machine's load does not move.
 */
import { spawn } from 'node:child_process';
import { readFile, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import express from 'express';
import { ServiceAuth } from '../dist/src/index.js';
import { atMost, type Figure } from './figures.js';
import { median } from './median.js';

const SCRIPT = fileURLToPath(new URL('./cold-start.mjs', import.meta.url));
const TRACE = new URL('../test/cli/fixtures/module-trace.mjs', import.meta.url).href;
const RUNS = 9;
// docs/performance.md#cold-start says why these.
const IMPORT_TARGET = 1.5;
const REQUEST_TARGET = 1.75;
const EMAIL = 'cold@example.com';
const PASSWORD = 'Bench-Password-12345';

type Side = 'service-auth' | 'floor';
type Phase = 'import' | 'request';

interface Measured {
  ms: number;
  cpuMs: number;
}

interface Setup {
  databaseUrl: string;
  cookie: string;
}

export async function appStartupFigures(dir: string): Promise<Figure[]> {
  const setup = await prepare(dir);
  const figures: Figure[] = [];
  for (const phase of ['import', 'request'] as const) {
    const runs: Record<Side, Measured[]> = { 'service-auth': [], floor: [] };
    await run('service-auth', phase, setup); // not counted: the files into the page cache
    await run('floor', phase, setup);
    for (let i = 0; i < RUNS; i++) {
      for (const side of i % 2 ? (['floor', 'service-auth'] as const) : (['service-auth', 'floor'] as const))
        runs[side].push(await run(side, phase, setup));
    }
    // Each run of ours against the floor's run beside it, in time: they shared the machine's state.
    const ratioOf = (key: keyof Measured) =>
      median(runs['service-auth'].map((ours, i) => ours[key] / runs.floor[i]![key]));
    const medianOf = (side: Side, key: keyof Measured) => median(runs[side].map((m) => m[key])).toFixed(0);
    const [ours, floor] = await Promise.all(
      (['service-auth', 'floor'] as const).map((side) =>
        modulesLoaded(side, phase, setup, join(dir, `trace-${side}-${phase}.txt`)),
      ),
    );
    const detail =
      `CPU ${medianOf('service-auth', 'cpuMs')} vs ${medianOf('floor', 'cpuMs')} ms; time ${medianOf('service-auth', 'ms')} vs ${medianOf('floor', 'ms')} ms ` +
      `(ratio ${ratioOf('ms').toFixed(2)}); medians of ${RUNS} pairs; ${ours} vs ${floor} modules loaded`;
    figures.push(
      phase === 'import'
        ? atMost(
            "import 'service-auth' ÷ importing Express + MikroORM (CPU)",
            ratioOf('cpuMs'),
            IMPORT_TARGET,
            'ratio',
            detail,
          )
        : atMost(
            'process start to first answered request ÷ Express + MikroORM (CPU)',
            ratioOf('cpuMs'),
            REQUEST_TARGET,
            'ratio',
            detail,
          ),
    );
  }
  return figures;
}

/** An SQLite file with an up-to-date schema and one user, and a session cookie of that user's. */
async function prepare(dir: string): Promise<Setup> {
  const databaseUrl = `sqlite:${join(dir, 'cold-start.sqlite')}`;
  const app = express();
  app.set('SERVICE_AUTH_DATABASE_URL', databaseUrl);
  const auth = new ServiceAuth(app);
  auth.logger = { info() {}, warn() {}, error() {} };
  await auth.ready;
  const user = await auth.users.create({ email: EMAIL, password: PASSWORD });
  if (user.id !== 1) throw new Error(`the cold-start user is ${user.id}; the floor's route reads user 1`);
  const server = app.listen(0, '127.0.0.1');
  try {
    await new Promise((listening) => server.once('listening', listening));
    const { port } = server.address() as { port: number };
    const login = await fetch(`http://127.0.0.1:${port}/service-auth/login`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ email: EMAIL, password: PASSWORD }),
    });
    const cookie = login.headers
      .getSetCookie()
      .find((c) => c.startsWith('service_auth_session='))
      ?.split(';')[0];
    if (login.status !== 200 || !cookie) throw new Error(`the cold-start login answered ${login.status}`);
    return { databaseUrl, cookie };
  } finally {
    server.close();
    await auth.close();
  }
}

/**
 * One cold start: the import alone (timed inside), or process start to the answer; with the CPU
 * the process used for it.
 */
async function run(
  side: Side,
  phase: Phase,
  setup: Setup,
  nodeOptions: string[] = [],
  env: Record<string, string> = {},
): Promise<Measured> {
  const started = performance.now();
  const child = spawn(process.execPath, [...nodeOptions, SCRIPT, side, phase], {
    env: { PATH: process.env['PATH'], BENCH_DATABASE_URL: setup.databaseUrl, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
  const exited = new Promise<number | null>((resolve, reject) => {
    child.once('error', reject);
    child.once('close', resolve);
  });
  const firstLine = new Promise<string>((resolve, reject) => {
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
      stdout += chunk;
      if (stdout.includes('\n')) resolve(stdout.split('\n')[0]!);
    });
    void exited.then((code) =>
      reject(new Error(`cold start (${side}, ${phase}) exited with ${code} before answering: ${stderr.trim()}`)),
    );
  });
  try {
    const line = await firstLine;
    if (phase === 'import') return JSON.parse(line) as Measured;
    const answer = await fetch(`http://127.0.0.1:${line}/me`, { headers: { cookie: setup.cookie } });
    const body = await answer.text();
    const elapsed = performance.now() - started;
    if (answer.status !== 200 || body !== '{"id":1}')
      throw new Error(`cold start (${side}) answered ${answer.status} ${body}`);
    return { ms: elapsed, cpuMs: Number(answer.headers.get('x-cpu-ms')) };
  } finally {
    child.kill();
    await exited;
  }
}

/** How many modules (ES and CommonJS, ours and the packages') one cold start loads. */
async function modulesLoaded(side: Side, phase: Phase, setup: Setup, trace: string): Promise<number> {
  await run(side, phase, setup, ['--import', TRACE], { MODULE_TRACE: trace });
  const count = (await readFile(trace, 'utf8')).split('\n').filter(Boolean).length;
  await rm(trace, { force: true });
  return count;
}
