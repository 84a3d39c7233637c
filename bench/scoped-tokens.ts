/**
 * Scopes as rules (CONTRACT-3 §25a): a warm request with a scoped token (its ability the owner's
 * intersected with its scopes') ÷ the same request with an unscoped token, on a route whose
 * `require` checks the ability; both tokens of the same user, verified once before the load.
 */
import autocannon from 'autocannon';
import type { AppProcess } from './app-process.js';
import { atLeast, type Figure } from './figures.js';
import { ratio, type LoadSettings, type Ratio } from './load.js';
import { timeRequest } from './verification.js';

export async function scopedTokenFigures(
  app: AppProcess,
  settings: LoadSettings,
  versus: (r: Ratio) => string,
): Promise<Figure[]> {
  const cpu = () => app.call<number>({ cmd: 'cpuMicros' });
  const [unscoped] = await app.call<string[]>({ cmd: 'createTokens', count: 1 });
  const [scoped] = await app.call<string[]>({ cmd: 'createTokens', count: 1, scopes: ['notes:read', 'notes:write'] });
  const url = `${app.base}/note-check/${app.ready.userId}`;
  const headers = { unscoped: { Authorization: `Bearer ${unscoped}` }, scoped: { Authorization: `Bearer ${scoped}` } };
  for (const bearer of [headers.unscoped, headers.scoped]) {
    await timeRequest(url, bearer); // its one derivation
    await autocannon({
      url,
      connections: settings.connections,
      pipelining: settings.pipelining,
      duration: 1,
      headers: bearer,
    });
  }
  const measured = await ratio(settings, cpu, url, url, headers.scoped, headers.unscoped);
  return [
    atLeast(
      'scoped token ÷ unscoped token, require route',
      measured.ratio,
      0.95,
      `${versus(measured)}; two scopes, the same user and route`,
    ),
  ];
}
