/** The HTTP side of the multi-instance tests: requests as an API client sends them, and polling. */
import { expect } from 'chai';

/** A request as a browser-less client sends it: JSON in, the session cookie if given. */
export function call(
  base: string,
  path: string,
  init: { method?: string; body?: unknown; cookie?: string | undefined; token?: string } = {},
): Promise<Response> {
  const headers: Record<string, string> = { Accept: 'application/json' };
  if (init.body !== undefined) headers['Content-Type'] = 'application/json';
  if (init.cookie) headers['Cookie'] = init.cookie;
  if (init.token) headers['Authorization'] = `Bearer ${init.token}`;
  return fetch(`${base}${path}`, {
    method: init.method ?? (init.body === undefined ? 'GET' : 'POST'),
    headers,
    body: init.body === undefined ? undefined : JSON.stringify(init.body),
  });
}

/** The `name=value` of the session cookie a response set. */
export function sessionCookie(response: Response): string {
  const cookie = response.headers.getSetCookie().find((c) => c.startsWith('service_auth_session='));
  expect(cookie, 'a session cookie').to.be.a('string');
  return cookie!.split(';')[0]!;
}

/** Asks `probe` every 25 ms until it answers `status`; fails the test once `withinMs` has passed. */
export async function untilStatus(probe: () => Promise<Response>, status: number, withinMs: number): Promise<void> {
  const started = performance.now();
  for (;;) {
    const response = await probe();
    await response.arrayBuffer();
    const elapsed = performance.now() - started;
    if (response.status === status) return;
    if (elapsed > withinMs)
      expect.fail(`still ${response.status} after ${Math.round(elapsed)} ms; expected ${status} within ${withinMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}
