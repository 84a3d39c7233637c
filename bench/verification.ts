/**
 * What verifying a personal access token costs when the answer is not in memory: a token the
 * process has never seen, and a flood of tokens that can only be refused after a derivation.
 */
import { randomBytes } from 'node:crypto';
import autocannon from 'autocannon';
import { assembleToken } from '../dist/src/tokens/format.js';
import type { AppProcess } from './app-process.js';
import { median } from './median.js';

export async function timeRequest(url: string, headers: Record<string, string>): Promise<number> {
  const started = performance.now();
  const response = await fetch(url, { headers });
  await response.arrayBuffer();
  const elapsed = performance.now() - started;
  if (response.status !== 200) throw new Error(`${url}: ${response.status}`);
  return elapsed;
}

/** Cold verification (a token this process has never seen) against one bare derivation; medians. */
export async function coldVerification(
  app: AppProcess,
  samples: number,
): Promise<{ ratio: number; cold: number; bare: number }> {
  const tokens = await app.call<string[]>({ cmd: 'createTokens', count: samples });
  const cold: number[] = [];
  const bare: number[] = [];
  for (const token of tokens) {
    bare.push(await app.call<number>({ cmd: 'bareDerivation' }));
    cold.push(await timeRequest(`${app.base}/token`, { Authorization: `Bearer ${token}` }));
  }
  return { ratio: median(cold) / median(bare), cold: median(cold), bare: median(bare) };
}

/**
 * p99 latency of the unguarded route at a steady 500 requests/s, alone and while bogus tokens for
 * a real id (valid check, wrong secret: each needs a derivation to refuse) arrive at 200/s.
 */
export async function latencyUnderAttack(
  app: AppProcess,
): Promise<{ p99: number; baselineP99: number; answered: Record<number, number> }> {
  const measure = async () =>
    (await autocannon({ url: `${app.base}/plain`, connections: 10, overallRate: 500, duration: 10 })).latency.p99;
  const baselineP99 = await measure();
  const [realToken] = await app.call<string[]>({ cmd: 'createTokens', count: 1 });
  const id = realToken!.split('_')[1]!;
  const answered: Record<number, number> = {};
  const attack = setInterval(() => {
    for (let i = 0; i < 20; i++) {
      const bogus = assembleToken('sat', id, randomBytes(32));
      fetch(`${app.base}/token`, { headers: { Authorization: `Bearer ${bogus}` } })
        .then(async (response) => {
          await response.arrayBuffer();
          answered[response.status] = (answered[response.status] ?? 0) + 1;
        })
        .catch(() => undefined);
    }
  }, 100);
  try {
    return { p99: await measure(), baselineP99, answered };
  } finally {
    clearInterval(attack);
  }
}
