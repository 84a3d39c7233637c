/**
 * A mocha reporter that measures where the suite's time goes: per test file, its wall time, and
 * how many child processes (by kind: CLI, browser, demo, other), PostgreSQL databases and timer
 * waits started from test code it caused. It runs inside mocha's process (serial mode), so it
 * can count by wrapping child_process, pg and setTimeout before the test files load.
 *
 *   npx mocha --no-parallel --reporter scripts/test-timings.cjs <the glob of package.json's test script>
 *   (TEST_TIMINGS_JSON=file also writes the rows as JSON)
 */
'use strict';
const childProcess = require('node:child_process');
const { syncBuiltinESMExports } = require('node:module');
const { writeFileSync } = require('node:fs');
const { relative } = require('node:path');
const Mocha = require('mocha');

const { EVENT_RUN_END, EVENT_SUITE_BEGIN, EVENT_SUITE_END, EVENT_TEST_END, EVENT_TEST_FAIL } = Mocha.Runner.constants;

const files = new Map(); // file → { ms, tests, failures, spawns: {kind: n}, databases, timerWaits, timerMs, slowest: [] }
let current; // the file now running
const row = (file) => {
  let r = files.get(file);
  if (!r)
    files.set(
      file,
      (r = {
        file,
        ms: 0,
        tests: 0,
        failures: 0,
        spawns: {},
        spawnMs: {},
        databases: 0,
        timerWaits: 0,
        timerMs: 0,
        slowest: [],
      }),
    );
  return r;
};

function kindOf(command, args) {
  const line = [command, ...(args || [])].join(' ');
  if (/chrom/.test(line)) return 'browser';
  if (/cli\/index\.(js|ts)|service-auth/.test(line)) return 'cli';
  if (/demo\/server/.test(line)) return 'demo';
  if (/\bscript\b/.test(command)) return 'cli'; // util-linux script around the CLI (pty)
  if (/npm/.test(line)) return 'npm';
  if (/tsc/.test(line)) return 'tsc';
  return 'other';
}

for (const name of ['spawn', 'execFile', 'spawnSync', 'execFileSync']) {
  const original = childProcess[name];
  childProcess[name] = function (command, args, ...rest) {
    const kind = kindOf(String(command), Array.isArray(args) ? args : []);
    const r = current && row(current);
    if (r) r.spawns[kind] = (r.spawns[kind] || 0) + 1;
    const started = performance.now();
    const result = original.call(this, command, args, ...rest);
    const add = () => r && (r.spawnMs[kind] = (r.spawnMs[kind] || 0) + performance.now() - started);
    if (result && typeof result.once === 'function') result.once('close', add);
    else add();
    return result;
  };
}
syncBuiltinESMExports();

try {
  const pg = require('pg');
  const query = pg.Client.prototype.query;
  pg.Client.prototype.query = function (text, ...rest) {
    if (typeof text === 'string' && /^\s*CREATE DATABASE/i.test(text) && current) row(current).databases++;
    return query.call(this, text, ...rest);
  };
} catch {
  // pg not installed: no database count
}

// Timer waits started by test code (not by the package or libraries): a fixed sleep or a poll step.
const setTimeoutOriginal = globalThis.setTimeout;
globalThis.setTimeout = function (fn, ms, ...rest) {
  if (current && typeof ms === 'number' && ms >= 20) {
    const stack = new Error().stack || '';
    const caller = stack
      .split('\n')
      .slice(2)
      .find((line) => !/node_modules|node:|scripts\/test-timings/.test(line));
    if (caller && /\/test\//.test(caller) && typeof fn === 'function') {
      // Counted when it fires: a deadline that was cleared cost nothing.
      const r = row(current);
      return setTimeoutOriginal.call(
        this,
        (...args) => {
          r.timerWaits++;
          r.timerMs += ms;
          return fn(...args);
        },
        ms,
        ...rest,
      );
    }
  }
  return setTimeoutOriginal.call(this, fn, ms, ...rest);
};

class TestTimings extends Mocha.reporters.Spec {
  constructor(runner, options) {
    super(runner, options);
    const open = new Map();
    runner.on(EVENT_SUITE_BEGIN, (suite) => {
      if (!suite.file || suite.parent?.file === suite.file) return;
      current = relative(process.cwd(), suite.file);
      open.set(suite, performance.now());
    });
    runner.on(EVENT_SUITE_END, (suite) => {
      const started = open.get(suite);
      if (started === undefined) return;
      row(relative(process.cwd(), suite.file)).ms += performance.now() - started;
    });
    runner.on(EVENT_TEST_END, (test) => {
      if (!test.file) return;
      const r = row(relative(process.cwd(), test.file));
      r.tests++;
      r.slowest.push([test.duration || 0, test.fullTitle()]);
      r.slowest.sort((a, b) => b[0] - a[0]).splice(3);
    });
    runner.on(EVENT_TEST_FAIL, (test) => test.file && row(relative(process.cwd(), test.file)).failures++);
    runner.once(EVENT_RUN_END, () => {
      const rows = [...files.values()].sort((a, b) => b.ms - a.ms);
      const total = rows.reduce((sum, r) => sum + r.ms, 0);
      console.log(
        '\n  file                                          s   share tests  spawns (kind:n)            dbs  timers(n/s)',
      );
      for (const r of rows) {
        const spawns = Object.entries(r.spawns)
          .map(([k, n]) => `${k}:${n}`)
          .join(' ');
        console.log(
          `  ${r.file.padEnd(44)} ${(r.ms / 1000).toFixed(1).padStart(5)} ${((100 * r.ms) / total).toFixed(1).padStart(5)}% ${String(r.tests).padStart(4)}  ${spawns.padEnd(26)} ${String(r.databases).padStart(3)}  ${r.timerWaits}/${(r.timerMs / 1000).toFixed(1)}`,
        );
      }
      const sum = (key) => rows.reduce((s, r) => s + r[key], 0);
      const kinds = {};
      const kindMs = {};
      for (const r of rows)
        for (const [k, n] of Object.entries(r.spawns))
          ((kinds[k] = (kinds[k] || 0) + n), (kindMs[k] = (kindMs[k] || 0) + (r.spawnMs[k] || 0)));
      console.log(
        `\n  total in files: ${(total / 1000).toFixed(1)} s; spawns ${JSON.stringify(kinds)}; spawn wall s ${JSON.stringify(Object.fromEntries(Object.entries(kindMs).map(([k, v]) => [k, +(v / 1000).toFixed(1)])))}; databases ${sum('databases')}; timer waits ${sum('timerWaits')} (${(sum('timerMs') / 1000).toFixed(1)} s)`,
      );
      if (process.env.TEST_TIMINGS_JSON) writeFileSync(process.env.TEST_TIMINGS_JSON, JSON.stringify(rows, null, 2));
    });
  }
}

module.exports = TestTimings;
