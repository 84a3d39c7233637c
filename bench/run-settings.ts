/**
 * What every figure of `npm run bench` shares: the load's settings (from BENCH_* variables), the
 * PostgreSQL server, and how a throughput ratio is written in a figure's detail.
 */
import type { LoadSettings, Ratio } from './load.js';
import { DEFAULT_POSTGRES_URL } from './postgres.js';

export const settings: LoadSettings = {
  seconds: Number(process.env['BENCH_SECONDS'] || 2),
  rounds: Number(process.env['BENCH_ROUNDS'] || 8),
  connections: 10,
  // Pipelined requests make the load generator cheap enough per request that the server, not
  // autocannon, is what runs out of CPU on a small machine: the ratios then measure the server.
  pipelining: Number(process.env['BENCH_PIPELINING'] || 10),
};
export const postgresUrl = process.env['SERVICE_AUTH_BENCH_DATABASE_URL'] || DEFAULT_POSTGRES_URL;
// A derivation's time varies by ±10% from one to the next on a shared machine: enough samples that
// the medians are steady.
export const COLD_SAMPLES = 15;
export const resultsPath = new URL('./results.json', import.meta.url).pathname;

const whole = (n: number) => String(Math.round(n));
/**
 * "9938 vs 10343 req/s, 101 vs 97 µs CPU/request (CPU ratio 0.96)": throughput, and the server's
 * CPU behind it, also as a ratio read like the throughput one (baseline's CPU ÷ the route's), which
 * depends less on what else the shared machine runs.
 */
export const versus = (r: Ratio) =>
  `${whole(r.route.rps)} vs ${whole(r.base.rps)} req/s, ${whole(r.route.cpuPerRequest)} vs ${whole(r.base.cpuPerRequest)} µs CPU/request ` +
  `(CPU ratio ${(r.base.cpuPerRequest / r.route.cpuPerRequest).toFixed(2)})`;
