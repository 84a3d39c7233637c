/**
 * `npm run bench`: the figures of CONTRACT section 12, measured in one run on this machine and
 * printed as ratios (absolute numbers vary between machines and runs; ratios much less).
 *
 * The application (bench/server.ts) runs in a child process on SQLite; the load comes from
 * autocannon in this process, over loopback HTTP with keep-alive.
 */
import { fork, type ChildProcess } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import os from 'node:os';
import autocannon from 'autocannon';
import { assembleToken } from '../dist/src/tokens/format.js';

const THROUGHPUT_SECONDS = Number(process.env['BENCH_SECONDS'] || 2);
const ROUNDS = Number(process.env['BENCH_ROUNDS'] || 6);
const CONNECTIONS = 10;
// Pipelined requests make the load generator cheap enough per request that the server, not
// autocannon, is what runs out of CPU on a small machine: the ratios then measure the server.
const PIPELINING = Number(process.env['BENCH_PIPELINING'] || 10);

interface Ready {
  port: number;
  cookie: string;
  userId: number;
  passportToken: string;
}

class BenchServer {
  private next = 1;
  private readonly waiting = new Map<number, (result: unknown) => void>();

  constructor(private readonly child: ChildProcess) {
    child.on('message', (message: { id?: number; result?: unknown }) => {
      if (message.id !== undefined) this.waiting.get(message.id)?.(message.result);
    });
  }

  call<T>(command: Record<string, unknown>): Promise<T> {
    const id = this.next++;
    return new Promise((resolve) => {
      this.waiting.set(id, resolve as (result: unknown) => void);
      this.child.send({ id, ...command });
    });
  }
}

async function start(dir: string): Promise<{ server: BenchServer; ready: Ready; child: ChildProcess }> {
  const child = fork(new URL('./server.ts', import.meta.url).pathname, [], {
    execArgv: ['--import', 'tsx'],
    env: { ...process.env, BENCH_DATABASE_URL: `sqlite:${join(dir, 'bench.sqlite')}`, NODE_ENV: 'production', SERVICE_AUTH_PUBLIC_URL: 'http://127.0.0.1' },
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  const ready = await new Promise<Ready>((resolve, reject) => {
    child.once('message', (message: Ready & { ready?: boolean }) => (message.ready ? resolve(message) : reject(new Error('server failed'))));
    child.once('exit', (code) => reject(new Error(`bench server exited with ${code}`)));
  });
  return { server: new BenchServer(child), ready, child };
}

/** Requests per second over a fixed duration; fails loudly if any request was not a 2xx. */
async function throughput(url: string, headers: Record<string, string> = {}): Promise<number> {
  const result = await autocannon({ url, connections: CONNECTIONS, pipelining: PIPELINING, duration: THROUGHPUT_SECONDS, headers });
  if (result.non2xx || result.errors) throw new Error(`${url}: ${result.non2xx} non-2xx responses, ${result.errors} errors`);
  return result.requests.average;
}

/**
 * A route against its baseline, in rounds that alternate which goes first (A B, B A, A B …) so
 * that neither drift in machine speed nor running second favours one side; the median of the
 * rounds' ratios is reported, which one disturbed round cannot move.
 */
async function ratio(base: string, route: string, headers: Record<string, string>, baseHeaders: Record<string, string> = {}): Promise<{ ratio: number; rps: number; baseRps: number }> {
  const ratios: number[] = [];
  let routeTotal = 0;
  let baseTotal = 0;
  for (let round = 0; round < ROUNDS; round++) {
    let baseRps: number;
    let routeRps: number;
    if (round % 2 === 0) {
      baseRps = await throughput(base, baseHeaders);
      routeRps = await throughput(route, headers);
    } else {
      routeRps = await throughput(route, headers);
      baseRps = await throughput(base, baseHeaders);
    }
    ratios.push(routeRps / baseRps);
    baseTotal += baseRps;
    routeTotal += routeRps;
  }
  return { ratio: median(ratios), rps: routeTotal / ROUNDS, baseRps: baseTotal / ROUNDS };
}

async function timeRequest(url: string, headers: Record<string, string>): Promise<number> {
  const started = performance.now();
  const response = await fetch(url, { headers });
  await response.arrayBuffer();
  const elapsed = performance.now() - started;
  if (response.status !== 200) throw new Error(`${url}: ${response.status}`);
  return elapsed;
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[middle]! : (sorted[middle - 1]! + sorted[middle]!) / 2;
}

/** Cold verification (a token this process has never seen) against one bare derivation. */
async function coldVerification(server: BenchServer, base: string, samples = 5): Promise<{ ratio: number; cold: number; bare: number }> {
  const tokens = await server.call<string[]>({ cmd: 'createTokens', count: samples });
  const cold: number[] = [];
  const bare: number[] = [];
  for (const token of tokens) {
    bare.push(await server.call<number>({ cmd: 'bareDerivation' }));
    cold.push(await timeRequest(`${base}/token`, { Authorization: `Bearer ${token}` }));
  }
  return { ratio: median(cold) / median(bare), cold: median(cold), bare: median(bare) };
}

/**
 * p99 latency of the unguarded route at a steady 500 requests/s while bogus tokens for a real id
 * (valid check, wrong secret: each needs a derivation to refuse) arrive at 200/s.
 */
async function latencyUnderAttack(server: BenchServer, base: string): Promise<{ p99: number; baselineP99: number; refused: Record<number, number> }> {
  const measure = async () =>
    (await autocannon({ url: `${base}/plain`, connections: 10, overallRate: 500, duration: 10 })).latency.p99;
  const baselineP99 = await measure();
  const [realToken] = await server.call<string[]>({ cmd: 'createTokens', count: 1 });
  const id = realToken!.split('_')[1]!;
  const refused: Record<number, number> = {};
  const attack = setInterval(() => {
    for (let i = 0; i < 20; i++) {
      const bogus = assembleToken('sat', id, randomBytes(32));
      fetch(`${base}/token`, { headers: { Authorization: `Bearer ${bogus}` } })
        .then(async (response) => {
          await response.arrayBuffer();
          refused[response.status] = (refused[response.status] ?? 0) + 1;
        })
        .catch(() => undefined);
    }
  }, 100);
  try {
    return { p99: await measure(), baselineP99, refused };
  } finally {
    clearInterval(attack);
  }
}

function row(figure: string, value: string, target: string, pass: boolean, detail: string): string[] {
  return [figure, value, target, pass ? 'yes' : 'NO', detail];
}

function printTable(rows: string[][]): void {
  const header = ['figure', 'measured', 'target', 'met', 'detail'];
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i]!.length)));
  const line = (cells: string[]) => cells.map((cell, i) => cell.padEnd(widths[i]!)).join('  ');
  console.log(line(header));
  console.log(widths.map((w) => '-'.repeat(w)).join('  '));
  for (const r of rows) console.log(line(r));
}

const dir = await mkdtemp(join(tmpdir(), 'service-auth-bench-'));
const { server, ready, child } = await start(dir);
const base = `http://127.0.0.1:${ready.port}`;
const rows: string[][] = [];
const fmt = (n: number) => n.toFixed(2);
const rps = (n: number) => `${Math.round(n)} req/s`;
try {
  console.log(`service-auth benchmark (node ${process.version}, ${os.availableParallelism()} CPUs).`);
  console.log(
    `Throughput: autocannon, ${CONNECTIONS} keep-alive connections × ${PIPELINING} pipelined requests, ${THROUGHPUT_SECONDS} s per run; ` +
      `each ratio is the median of ${ROUNDS} rounds (baseline and route, alternating which runs first) after a warm-up of every route.`,
  );
  console.log('The application (bench/server.ts, on the built package in dist/) runs in a child process on SQLite with rate limits off.\n');

  const [warm] = await server.call<string[]>({ cmd: 'createTokens', count: 1 });
  await timeRequest(`${base}/token`, { Authorization: `Bearer ${warm}` }); // its one derivation
  const warmUps: [string, Record<string, string>][] = [
    ['/plain', {}],
    [`/open/${ready.userId}`, {}],
    ['/token', { Authorization: `Bearer ${warm}` }],
    ['/session', { Cookie: ready.cookie }],
    [`/policy/${ready.userId}`, { Cookie: ready.cookie }],
    ['/limited', {}],
    ['/express-rate-limit', {}],
    ['/passport', { Authorization: `Bearer ${ready.passportToken}` }],
  ];
  for (const [path, headers] of warmUps) await autocannon({ url: `${base}${path}`, connections: CONNECTIONS, pipelining: PIPELINING, duration: 1, headers });

  const token = await ratio(`${base}/plain`, `${base}/token`, { Authorization: `Bearer ${warm}` });
  rows.push(row('warm bearer token ÷ unguarded', fmt(token.ratio), '≥ 0.85', token.ratio >= 0.85, `${rps(token.rps)} vs ${rps(token.baseRps)}`));
  const session = await ratio(`${base}/plain`, `${base}/session`, { Cookie: ready.cookie });
  rows.push(row('session cookie ÷ unguarded', fmt(session.ratio), '≥ 0.85', session.ratio >= 0.85, `${rps(session.rps)} vs ${rps(session.baseRps)}`));
  const policy = await ratio(`${base}/open/${ready.userId}`, `${base}/policy/${ready.userId}`, { Cookie: ready.cookie });
  rows.push(row('policy guard (require) ÷ unguarded', fmt(policy.ratio), '≥ 0.85', policy.ratio >= 0.85, `${rps(policy.rps)} vs ${rps(policy.baseRps)} (/users/:id-shaped routes)`));

  await server.call({ cmd: 'fill', total: 10 });
  const cold10 = await coldVerification(server, base);
  rows.push(row('cold verification ÷ bare derivation, 10 stored', fmt(cold10.ratio), '≤ 1.2', cold10.ratio <= 1.2, `${cold10.cold.toFixed(1)} ms vs ${cold10.bare.toFixed(1)} ms (medians of 5)`));
  const stored = await server.call<number>({ cmd: 'fill', total: 100_000 });
  const cold100k = await coldVerification(server, base);
  rows.push(row(`cold verification ÷ bare derivation, ${stored} stored`, fmt(cold100k.ratio), '≤ 1.2', cold100k.ratio <= 1.2, `${cold100k.cold.toFixed(1)} ms vs ${cold100k.bare.toFixed(1)} ms (medians of 5)`));

  const attack = await latencyUnderAttack(server, base);
  const answered = Object.entries(attack.refused).map(([status, n]) => `${n}×${status}`).join(', ');
  rows.push(row('p99 unguarded under 200/s bogus tokens', `${attack.p99} ms`, '≤ 50 ms', attack.p99 <= 50, `500 req/s steady; ${attack.baselineP99} ms without the attack; attack answered ${answered}`));

  const limited = await ratio(`${base}/plain`, `${base}/limited`, {});
  rows.push(row('rate-limited route ÷ unguarded', fmt(limited.ratio), '≥ 0.9', limited.ratio >= 0.9, `${rps(limited.rps)} vs ${rps(limited.baseRps)}`));
  const erl = await ratio(`${base}/express-rate-limit`, `${base}/limited`, {});
  rows.push(row('our limiter ÷ express-rate-limit', fmt(erl.ratio), '≥ 1.3', erl.ratio >= 1.3, `${rps(erl.rps)} vs ${rps(erl.baseRps)}`));
  const passport = await ratio(`${base}/passport`, `${base}/token`, { Authorization: `Bearer ${warm}` }, { Authorization: `Bearer ${ready.passportToken}` });
  rows.push(row('warm token ÷ Passport bearer + SHA-256 lookup', fmt(passport.ratio), '≥ 1.0', passport.ratio >= 1.0, `${rps(passport.rps)} vs ${rps(passport.baseRps)}`));

  printTable(rows);
} finally {
  await server.call({ cmd: 'stop' }).catch(() => undefined);
  child.kill();
  await rm(dir, { recursive: true, force: true });
}
