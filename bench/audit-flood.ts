/**
 * What the audit log costs the database during a flood (CONTRACT-2 §17): failures are written in
 * one batch at most every second, so the statements it adds per second do not grow with the
 * flood's rate. Counted on PostgreSQL, where a batch is one statement (the chain's append function).
 *
 * - Failed logins, the bench server's rate limits off: every attempt reaches the password check
 *   and is recorded.
 * - Refused bearer tokens: not recorded one by one (CONTRACT-2 §17 has no type for them); with
 *   rate limits on, the 429s that follow are recorded once per client and endpoint a minute.
 */
import autocannon from 'autocannon';
import type { AppProcess } from './app-process.js';
import { atMost, type Figure } from './figures.js';

const FLOOD_SECONDS = 5;
/** Past the batch delay, so that the last batch the flood queued is counted. */
const SETTLE_MS = 1500;

export async function auditFloodFigures(app: AppProcess): Promise<Figure[]> {
  const flood = async (name: string, options: autocannon.Options, note: string): Promise<Figure> => {
    const before = await app.call<number>({ cmd: 'auditStatements' });
    const started = performance.now();
    const result = await autocannon({ connections: 16, duration: FLOOD_SECONDS, ...options });
    await new Promise((resolve) => setTimeout(resolve, SETTLE_MS));
    const seconds = (performance.now() - started) / 1000;
    const perSecond = ((await app.call<number>({ cmd: 'auditStatements' })) - before) / seconds;
    const detail = `${result.requests.total.toLocaleString('en')} requests in ${FLOOD_SECONDS} s (${Math.round(result.requests.average)}/s), ${result.non2xx.toLocaleString('en')} refused; counted over ${seconds.toFixed(1)} s; ${note}`;
    return atMost(name, perSecond, 2, 'per s', detail);
  };
  return [
    await flood(
      'audit log statements per second, flood of failed logins (PostgreSQL)',
      {
        url: `${app.base}/service-auth/login`,
        method: 'POST',
        headers: { 'Content-Type': 'application/json' },
        body: JSON.stringify({ email: 'bench@example.com', password: 'Not-The-Password-1' }),
      },
      'rate limits off: every attempt recorded, in one batch a second',
    ),
    await flood(
      'audit log statements per second, flood of refused bearer tokens (PostgreSQL)',
      {
        url: `${app.base}/token`,
        headers: { Authorization: `Bearer sat_${'A'.repeat(43)}` },
      },
      'a refused token is not recorded by itself; with rate limits on, the 429s once per client a minute',
    ),
  ];
}
