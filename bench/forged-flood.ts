/**
 * A real token's first use during a flood of forged ones (issue 25, item 6): forgeries for real ids
 * (a valid check, a wrong secret: only a derivation refuses each), sent without pause from 20 client
 * addresses, while real tokens are used for the first time, one after the other, each from an
 * address of its own. The server trusts X-Forwarded-For (BENCH_TRUST_PROXY) so that one machine can
 * be 20 clients, and runs with rate limits off: the flood is bounded by nothing but the
 * derivation queue.
 */
import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import { assembleToken } from '../dist/src/tokens/format.js';
import { AppProcess } from './app-process.js';
import { atMost, type Figure } from './figures.js';
import { median } from './median.js';
import { timeRequest } from './verification.js';

export const FORGED_FLOOD_FIGURE = 'p99 first use of a real token during a forged-token flood from 20 addresses';
const ATTACKERS = 20;
/** Forgeries each address keeps in flight. */
const IN_FLIGHT = 4;
const SAMPLES = 100;
const QUIET_SAMPLES = 5;
/** The flood runs this long before the first sample: its addresses have failed by then. */
const WARM_UP_MS = 2000;

export async function forgedFloodFigures(dir: string): Promise<Figure[]> {
  const app = await AppProcess.start({
    databaseUrl: `sqlite:${join(dir, 'flood.sqlite')}`,
    env: { BENCH_TRUST_PROXY: '1' },
  });
  try {
    const [quiet, tokens] = [
      await app.call<string[]>({ cmd: 'createTokens', count: QUIET_SAMPLES }),
      await app.call<string[]>({ cmd: 'createTokens', count: SAMPLES }),
    ];
    // The same first use without the flood: what one derivation takes on this machine now.
    const quietTimes: number[] = [];
    for (const token of quiet)
      quietTimes.push(await timeRequest(`${app.base}/token`, { Authorization: `Bearer ${token}` }));
    const ids = tokens.map((token) => token.split('_')[1]!);
    const answered: Record<number, number> = {};
    const count = (status: number) => void (answered[status] = (answered[status] ?? 0) + 1);
    let flooding = true;
    const attacker = async (ip: string) => {
      for (let i = 0; flooding; i++) {
        const forged = assembleToken('sat', ids[i % ids.length]!, randomBytes(32));
        const response = await fetch(`${app.base}/token`, {
          headers: { Authorization: `Bearer ${forged}`, 'X-Forwarded-For': ip },
        }).catch(() => null);
        await response?.arrayBuffer();
        count(response?.status ?? 0);
      }
    };
    const flood = Array.from({ length: ATTACKERS * IN_FLIGHT }, (_, i) => attacker(`198.18.0.${(i % ATTACKERS) + 1}`));
    await new Promise((resolve) => setTimeout(resolve, WARM_UP_MS));

    const times: number[] = [];
    const realAnswers: Record<number, number> = {};
    try {
      for (const [i, token] of tokens.entries()) {
        const started = performance.now();
        const response = await fetch(`${app.base}/token`, {
          headers: { Authorization: `Bearer ${token}`, 'X-Forwarded-For': `198.19.${i >> 8}.${i & 255}` },
        });
        await response.arrayBuffer();
        times.push(performance.now() - started);
        realAnswers[response.status] = (realAnswers[response.status] ?? 0) + 1;
      }
    } finally {
      flooding = false;
      await Promise.all(flood);
    }
    const p99 = [...times].sort((a, b) => a - b)[Math.ceil(times.length * 0.99) - 1]!;
    const list = (counts: Record<number, number>) =>
      Object.entries(counts)
        .map(([status, n]) => `${n}×${status}`)
        .join(', ');
    const detail =
      `${SAMPLES} real tokens in turn, each from its own address, answered ${list(realAnswers)}; median ${median(times).toFixed(0)} ms ` +
      `(${median(quietTimes).toFixed(0)} ms without the flood); ` +
      `${ATTACKERS} addresses × ${IN_FLIGHT} forgeries in flight for the same ids, started ${WARM_UP_MS / 1000} s before, answered ${list(answered)}`;
    // A real token refused (a 503) misses the target, whatever the time.
    const figure = atMost(FORGED_FLOOD_FIGURE, p99 / 1000, 1, 's', detail);
    return [{ ...figure, met: figure.met && realAnswers[200] === tokens.length }];
  } finally {
    await app.stop();
  }
}
