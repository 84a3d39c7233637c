/**
 * `npm run bench`: the performance figures (and the warm-token one on PostgreSQL),
 * measured in one run on this machine, printed as one table beside the last run's values and
 * written to bench/results.json.
 *
 * The application (bench/server.ts, on the built package in dist/) runs in a child process; the
 * load comes from autocannon in this process, over loopback HTTP with keep-alive.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import os, { tmpdir } from 'node:os';
import { join } from 'node:path';
import autocannon from 'autocannon';
import { AppProcess } from './app-process.js';
import { atLeast, atMost, skipped, type Figure } from './figures.js';
import { ratio, ratios } from './load.js';
import { NOTES, OWNERS, PAGE } from './notes.js';
import { describeUrl } from './postgres.js';
import { printTable, readResults, writeResults } from './report.js';
import { coldVerification, latencyUnderAttack, timeRequest } from './verification.js';
import { FRESH_INSTANCE_FIGURE, freshInstanceFigures } from './fresh-instance.js';
import { cliFigures } from './cli-startup.js';
import { appStartupFigures } from './app-startup.js';
import { forgedFloodFigures } from './forged-flood.js';
import { canLatencyFigures } from './can-latency.js';
import { enforcedEmFigures } from './enforced-em.js';
import { scopedTokenFigures } from './scoped-tokens.js';
import { filterSizeFigures } from './filter-size.js';
import { BENCH_ORG, orgAbilityFigures } from './orgs.js';
import { postgresFigures } from './postgres-figures.js';
import { orgRouteFigure, relationFigures } from './route-figures.js';
import { COLD_SAMPLES, postgresUrl, resultsPath, settings, versus } from './run-settings.js';

async function sqliteFigures(dir: string): Promise<Figure[]> {
  const figures: Figure[] = [];
  const app = await AppProcess.start({ databaseUrl: `sqlite:${join(dir, 'bench.sqlite')}` });
  const cpu = () => app.call<number>({ cmd: 'cpuMicros' });
  const { base, ready } = app;
  try {
    const [warm] = await app.call<string[]>({ cmd: 'createTokens', count: 1 });
    await timeRequest(`${base}/token`, { Authorization: `Bearer ${warm}` }); // its one derivation
    const bearer = { Authorization: `Bearer ${warm}` };
    const cookie = { Cookie: ready.cookie };
    const warmUps: [string, Record<string, string>][] = [
      ['/plain', {}],
      [`/open/${ready.userId}`, {}],
      ['/token', bearer],
      ['/session', cookie],
      [`/policy/${ready.userId}`, cookie],
      ['/limited', {}],
      ['/express-rate-limit', {}],
      ['/empty-middleware', {}],
      ['/passport', { Authorization: `Bearer ${ready.passportToken}` }],
      [`/note-unguarded/${ready.noteId}`, cookie],
      [`/note-session/${ready.noteId}`, cookie],
      [`/note-guarded/${ready.noteId}`, cookie],
      ['/notes-handwritten', cookie],
      ['/notes-accessible', cookie],
      [`/task-guarded/${ready.taskId}`, cookie],
      [`/task-handwritten/${ready.taskId}`, cookie],
      ['/tasks-handwritten', cookie],
      ['/tasks-accessible', cookie],
      [`/orgs/${BENCH_ORG}/open`, cookie],
      [`/orgs/${BENCH_ORG}/guarded`, cookie],
      [`/orgs/${BENCH_ORG}/open-after`, cookie],
    ];
    for (const [path, headers] of warmUps)
      await autocannon({
        url: `${base}${path}`,
        connections: settings.connections,
        pipelining: settings.pipelining,
        duration: 1,
        headers,
      });

    const token = await ratio(settings, cpu, `${base}/plain`, `${base}/token`, bearer);
    figures.push(atLeast('warm bearer token ÷ unguarded', token.ratio, 0.85, versus(token)));
    figures.push(...(await scopedTokenFigures(app, settings, versus)));
    const session = await ratio(settings, cpu, `${base}/plain`, `${base}/session`, cookie);
    figures.push(atLeast('session cookie ÷ unguarded', session.ratio, 0.85, versus(session)));
    const policy = await ratio(settings, cpu, `${base}/open/${ready.userId}`, `${base}/policy/${ready.userId}`, cookie);
    figures.push(
      atLeast('policy guard (require) ÷ unguarded', policy.ratio, 0.85, `${versus(policy)} (/users/:id-shaped routes)`),
    );

    // The same handler and load (em.findOne of one row) on every side, the cookie sent to all: the
    // baseline has no guard at all, so the ratio charges the whole guard (session lookup, ability,
    // load check). loginRequired + the same load, in the same rounds, shows the session's part.
    const note = (route: string) => ({ url: `${base}/${route}/${ready.noteId}`, headers: cookie });
    const [loaded, sessionOnly] = await ratios(settings, cpu, note('note-unguarded'), [
      note('note-guarded'),
      note('note-session'),
    ]);
    const loadDetail = `${versus(loaded!)}; baseline: no guard (the cookie sent, not read); loginRequired + the same load instead: ${sessionOnly!.ratio.toFixed(2)}`;
    figures.push(
      atLeast('load-guarded route ÷ the same route loading the same row unguarded', loaded!.ratio, 0.9, loadDetail),
    );
    // Both lists behind the same session guard, with the same em.find (a page of the user's notes):
    // only building the filter differs.
    const list = await ratio(settings, cpu, `${base}/notes-handwritten`, `${base}/notes-accessible`, cookie, cookie);
    const listDetail = `${versus(list)}; ${PAGE} of the user's ${NOTES / OWNERS} rows of ${NOTES.toLocaleString('en')}, accessibleBy gave ${ready.accessibleBy}`;
    figures.push(
      atLeast(
        'accessibleBy + em.find ÷ the same em.find with a hand-written equivalent filter',
        list.ratio,
        0.9,
        listDetail,
      ),
    );
    figures.push(...(await relationFigures(settings, cpu, base, ready, cookie)));
    figures.push(await orgRouteFigure(settings, cpu, base, cookie));

    for (const total of [10, 100_000]) {
      const stored = await app.call<number>({ cmd: 'fill', total });
      const cold = await coldVerification(app, COLD_SAMPLES);
      const detail = `${cold.cold.toFixed(1)} ms vs ${cold.bare.toFixed(1)} ms (medians of ${COLD_SAMPLES})`;
      figures.push(
        atMost(
          `cold verification ÷ bare derivation, ${stored.toLocaleString('en')} stored`,
          cold.ratio,
          1.2,
          'ratio',
          detail,
        ),
      );
    }

    const attack = await latencyUnderAttack(app);
    const answered = Object.entries(attack.answered)
      .map(([status, n]) => `${n}×${status}`)
      .join(', ');
    const attackDetail = `500 req/s steady; ${attack.baselineP99} ms without the attack; attack answered ${answered}`;
    figures.push(atMost('p99 unguarded under 200/s bogus tokens', attack.p99, 50, 'ms', attackDetail));

    const limited = await ratio(settings, cpu, `${base}/plain`, `${base}/limited`);
    figures.push(atLeast('rate-limited route ÷ unguarded', limited.ratio, 0.9, versus(limited)));
    // The same rounds measure how far the figure can go: an empty middleware in the limiter's place
    // (a limiter that costs nothing) against express-rate-limit.
    const [erl, ceiling] = await ratios(settings, cpu, { url: `${base}/express-rate-limit` }, [
      { url: `${base}/limited` },
      { url: `${base}/empty-middleware` },
    ]);
    // And each limiter's own CPU per request, called alone.
    const alone = await app.call<{ ours: number; expressRateLimit: number }>({
      cmd: 'limiterCosts',
      calls: 50_000,
      rounds: 5,
    });
    // The row compares the two limiters' own cost: on a route, what Express does for any
    // middleware bounds the throughput ratio near 1.18 (docs/performance.md), whatever a limiter costs.
    const explained =
      `${alone.ours.toFixed(1)} vs ${alone.expressRateLimit.toFixed(1)} µs per call, each alone; on the route, throughput ÷ express-rate-limit's ` +
      `${erl!.ratio.toFixed(2)} (${versus(erl!)}), an empty middleware instead ${ceiling!.ratio.toFixed(2)}`;
    figures.push(
      atMost(
        "our limiter's own cost ÷ express-rate-limit's",
        alone.ours / alone.expressRateLimit,
        0.3,
        'ratio',
        explained,
      ),
    );

    const passport = await ratio(settings, cpu, `${base}/passport`, `${base}/token`, bearer, {
      Authorization: `Bearer ${ready.passportToken}`,
    });
    figures.push(atLeast('warm token ÷ Passport bearer + SHA-256 lookup', passport.ratio, 1.0, versus(passport)));
  } finally {
    await app.stop();
  }
  return figures;
}

const last = await readResults(resultsPath);
console.log(`service-auth benchmark (node ${process.version}, ${os.availableParallelism()} CPUs).`);
console.log(
  `Throughput: autocannon, ${settings.connections} keep-alive connections × ${settings.pipelining} pipelined requests, ${settings.seconds} s per run; ` +
    `each ratio is the median of ${settings.rounds} rounds (baseline and route, alternating which runs first) after a warm-up of every route.`,
);
console.log(
  `The application (bench/server.ts, on the built package in dist/) runs in a child process with rate limits off, on SQLite, then on PostgreSQL (${describeUrl(postgresUrl)}, database service_auth_bench).\n`,
);

// Other processes on the machine move the figures; the load average says how busy it was.
const loadAtStart = os.loadavg();
const dir = await mkdtemp(join(tmpdir(), 'service-auth-bench-'));
let figures: Figure[];
try {
  figures = await sqliteFigures(dir);
  figures.push(...(await forgedFloodFigures(dir)));
  const [warmOnPostgres, ...scale] = await postgresFigures();
  figures.splice(1, 0, warmOnPostgres!); // beside the same figure on SQLite
  figures.push(...scale);
  figures.push(
    ...(await freshInstanceFigures(postgresUrl).catch((error: unknown) => [
      skipped(FRESH_INSTANCE_FIGURE, 's', '≤ 2 s', error instanceof Error ? error.message : String(error)),
    ])),
  );
  figures.push(...(await cliFigures(dir)));
  figures.push(...(await appStartupFigures(dir)));
  figures.push(...(await canLatencyFigures()));
  figures.push(...(await filterSizeFigures()));
  figures.push(...(await enforcedEmFigures()));
  figures.push(...(await orgAbilityFigures()));
} finally {
  await rm(dir, { recursive: true, force: true });
}

const loadAtEnd = os.loadavg();
const loads = (averages: number[]) => averages.map((n) => n.toFixed(2)).join(' ');
console.log(`Load average (1, 5, 15 min) ${loads(loadAtStart)} at the start, ${loads(loadAtEnd)} at the end.\n`);
const runSettings = {
  ...settings,
  coldSamples: COLD_SAMPLES,
  databases: ['SQLite', 'PostgreSQL'],
  postgres: describeUrl(postgresUrl),
};
printTable(figures, last, runSettings);
await writeResults(resultsPath, {
  when: new Date().toISOString(),
  node: process.version,
  cpus: os.availableParallelism(),
  loadAverage: { start: loadAtStart, end: loadAtEnd },
  settings: runSettings,
  figures,
});
console.log(`\nWritten to bench/results.json.`);
