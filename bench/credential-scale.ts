/**
 * Credential checks whose database cost does not grow with the number of users (docs/scaling.md,
 * the change feed): K active sessions and K active tokens used in turn, on PostgreSQL.
 *
 * - Statements per second per instance in steady state, at K = 10, 1,000 and 10,000: every
 *   credential used once first (the warm-up reads its row), then the credentials in turn at a steady
 *   rate, the statements the package's own connection ran counted by the server.
 * - Throughput at K = 10,000 ÷ at K = 10, alternating, median of the rounds.
 *
 * The bench server writes the K tokens with one PBKDF2 iteration each (each row records its own
 * count): these figures count statements, not derivations.
 */
import autocannon from 'autocannon';
import type { AppProcess } from './app-process.js';
import { atLeast, atMost, type Figure } from './figures.js';
import type { LoadSettings } from './load.js';
import { median } from './median.js';

const KS = [10, 1_000, 10_000];
const STEADY_RATE = 400;
const STEADY_SECONDS = 5;

interface Credentials {
  tokens: string[];
  cookies: string[];
}

/** autocannon options whose requests take the credentials in turn: a token, a cookie, the next token, … */
function inTurn(base: string, { tokens, cookies }: Credentials): autocannon.Options {
  let next = 0;
  const total = tokens.length + cookies.length;
  const setupRequest = (request: autocannon.Request) => {
    const turn = next++ % total;
    const k = turn >> 1;
    return turn % 2 === 0
      ? { ...request, path: '/token', headers: { ...request.headers, authorization: `Bearer ${tokens[k]}` } }
      : { ...request, path: '/session', headers: { ...request.headers, cookie: cookies[k]! } };
  };
  return { url: base, requests: [{ setupRequest } as autocannon.Request] };
}

function refused(result: autocannon.Result): string {
  return result.non2xx > 0 ? `; ${result.non2xx} answers not 2xx` : '';
}

export async function credentialScaleFigures(app: AppProcess, settings: LoadSettings): Promise<Figure[]> {
  const figures: Figure[] = [];
  const statements = () => app.call<number>({ cmd: 'statements' });
  const held: Record<number, Credentials> = {};
  for (const k of KS) {
    const made = await app.call<{ tokens: string[]; secrets: string[] }>({ cmd: 'credentials', count: k });
    const cookieName = app.ready.cookie.split('=')[0]!; // as the login set it (__Host- when secure)
    const credentials = { tokens: made.tokens, cookies: made.secrets.map((secret) => `${cookieName}=${secret}`) };
    held[k] = credentials;
    const beforeWarm = await statements();
    const warm = await autocannon({
      ...inTurn(app.base, credentials),
      connections: settings.connections,
      amount: 2 * k,
    });
    const before = await statements();
    const started = performance.now();
    const steady = await autocannon({
      ...inTurn(app.base, credentials),
      connections: settings.connections,
      overallRate: STEADY_RATE,
      duration: STEADY_SECONDS,
    });
    const perSecond = ((await statements()) - before) / ((performance.now() - started) / 1000);
    const detail =
      `${k.toLocaleString('en')} sessions + ${k.toLocaleString('en')} tokens in turn at ${STEADY_RATE} req/s for ${STEADY_SECONDS} s, ` +
      `after a first use of each (${(before - beforeWarm).toLocaleString('en')} statements)${refused(warm)}${refused(steady)}`;
    figures.push(
      atMost(
        `database statements per second per instance, K = ${k.toLocaleString('en')} (PostgreSQL)`,
        perSecond,
        5,
        'per s',
        detail,
      ),
    );
  }

  const small = held[KS[0]!]!;
  const large = held[KS[KS.length - 1]!]!;
  const rates: number[] = [];
  const runs: string[] = [];
  for (let round = 0; round < Math.max(3, Math.floor(settings.rounds / 2)); round++) {
    const load = { connections: settings.connections, pipelining: settings.pipelining, duration: settings.seconds };
    const a = await autocannon({ ...inTurn(app.base, small), ...load });
    const b = await autocannon({ ...inTurn(app.base, large), ...load });
    rates.push(b.requests.average / a.requests.average);
    runs.push(`${Math.round(b.requests.average)} vs ${Math.round(a.requests.average)}`);
  }
  figures.push(
    atLeast(
      'throughput at K = 10,000 ÷ at K = 10 (PostgreSQL)',
      median(rates),
      0.9,
      `req/s per round: ${runs.join(', ')}`,
    ),
  );
  return figures;
}
