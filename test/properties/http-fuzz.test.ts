/**
 * Property-based fuzzing of the auth router over real HTTP: fast-check makes requests for every
 * endpoint (odd bodies, content types, encodings, paths and credentials, see http-requests.ts), and
 * every answer is held to what a client relies on:
 *
 * - never a 5xx: nothing a client sends may break the server (and the database is up, so no 503);
 * - every 4xx to a program is problem details whose `code` is documented and whose `status` is the
 *   response's; an HTML page only for a browser that asked for one (or a page's own URL);
 * - no stack trace and no path of this machine in any answer;
 * - a refused request changes nothing in the database.
 */
import { expect } from 'chai';
import express, { type Request } from 'express';
import fc from 'fast-check';
import { AuthError, ERROR_CODES, type ErrorCode } from '../../src/errors.js';
import type { AuthConfig } from '../../src/config/config.js';
import { PASSWORD } from '../helpers/app.js';
import { openApiCheckFor } from '../helpers/openapi-check.js';
import {
  SEEDED_EMAIL,
  startFuzzed,
  type Fuzzed,
  type FuzzRequest,
  type FuzzResponse,
  type Outcome,
  type Received,
  type Snapshot,
} from './http-harness.js';
import { anyRequest, browserRequest } from './http-requests.js';

/** Everything a client relies on, for one request, and what the API's OpenAPI description says of it. */
function checkOutcome({ request, received, response, before, after }: Outcome, config: AuthConfig): void {
  const where = explain(request, response);
  if (!received) expect.fail(`the request never reached the application: ${where}`);
  // The path as Express reads it: up to the query or a fragment; a URL parser would also turn a
  // `\` into `/`, which Express does not.
  const undocumented = openApiCheckFor(config).check(received.method, received.url.split(/[?#]/)[0]!, response);
  if (undocumented) expect.fail(`${undocumented}\n${where}`);
  const { status, text } = response;
  expect(status, where).to.be.below(500);
  // What the request itself carried may come back (a form shown again); nothing else of the kind.
  const sent = JSON.stringify(request);
  for (const leak of ['    at ', '/work/']) if (!sent.includes(leak)) expect(text, where).not.to.include(leak);
  if (status >= 400) {
    const usesToken = Object.values(request.headers).some((value) => value.includes('{{TOKEN}}'));
    expect(withoutTokenUse(after, usesToken), `the database changed after ${where}`).to.deep.equal(
      withoutTokenUse(before, usesToken),
    );
  }

  const type = String(response.headers['content-type'] ?? '');
  const page = askedForPage(received);
  if (type.startsWith('text/html') && !(status < 300 && isPageUrl(received, config)))
    expect(page, `a page for a request that did not ask for one: ${where}`).to.equal(true);
  if (status >= 400) {
    expect(type, where).to.match(page ? /^(text\/html|application\/problem\+json)/ : /^application\/problem\+json/);
    if (type.startsWith('application/problem+json') && received.method !== 'HEAD')
      checkProblem(JSON.parse(text) as Record<string, unknown>, status, where);
  }
}

function checkProblem(problem: Record<string, unknown>, status: number, where: string): void {
  expect(ERROR_CODES, where).to.include(problem['code']);
  expect(problem['status'], where).to.equal(status);
  expect(new AuthError(problem['code'] as ErrorCode, '').status, `the code's documented status: ${where}`).to.equal(
    status,
  );
  expect(problem, where).to.include({ type: 'about:blank' });
  expect(problem['title'], where).to.be.a('string');
  expect(problem['detail'], where).to.be.a('string');
}

/**
 * Whether the request asked for a page: Accept prefers HTML to JSON, and it is a navigation (GET,
 * HEAD) or a urlencoded form. Judged with Express's own `req.accepts` and `req.is`.
 */
function askedForPage({ method, headers }: Received): boolean {
  const req = Object.assign(Object.create(express.request) as Request, { method, headers });
  const prefersHtml = req.accepts(['application/json', 'text/html']) === 'text/html';
  return prefersHtml && (method === 'GET' || method === 'HEAD' || Boolean(req.is('application/x-www-form-urlencoded')));
}

/**
 * A page's own URL (`GET /login`, `/confirm?token=…`, `/tokens/<id>/revoke`…): what it serves is
 * the page, whatever Accept says, as the OpenAPI document's `pages` have it.
 */
function isPageUrl({ method, url }: Received, config: AuthConfig): boolean {
  return openApiCheckFor(config).isPage(method, url.split(/[?#]/)[0]!);
}

/**
 * The snapshot without the notes of use a refused request may leave: a token's `last_used_at` when
 * it carried the token, a session's `last_seen_at` (noted when its cookie came along).
 */
function withoutTokenUse(snapshot: Snapshot, usesToken: boolean): Snapshot {
  const sessions = (snapshot['service_auth_sessions'] ?? []).map(({ last_seen_at: _seen, ...row }) => row);
  if (!usesToken) return { ...snapshot, service_auth_sessions: sessions };
  const tokens = (snapshot['service_auth_api_tokens'] ?? []).map(({ last_used_at: _used, ...row }) => row);
  return { ...snapshot, service_auth_sessions: sessions, service_auth_api_tokens: tokens };
}

/** The request and the start of its answer, for a failure message. */
function explain(request: FuzzRequest, response: FuzzResponse): string {
  return `${JSON.stringify(request).slice(0, 2000)} → ${response.status} ${JSON.stringify(response.headers)} ${response.text.slice(0, 500)}`;
}

describe('the auth router under fuzzed requests', () => {
  describe('with rate limits off', () => {
    let fuzzed: Fuzzed;
    before(async () => {
      fuzzed = await startFuzzed({ SERVICE_AUTH_RATE_LIMIT_ENABLED: false });
    });
    after(() => fuzzed.close());

    it('answers every request with a documented problem code or an asked-for page, never a 500, and writes nothing when it refuses', async () => {
      await fc.assert(
        fc.asyncProperty(anyRequest(), async (request) => checkOutcome(await fuzzed.exercise(request), fuzzed.config)),
        { numRuns: 300 },
      );
    });

    it('answers a browser form or navigation with a page or a redirect, never JSON, and writes nothing when it refuses', async () => {
      await fc.assert(
        fc.asyncProperty(browserRequest(), async (request) => {
          const outcome = await fuzzed.exercise(request);
          checkOutcome(outcome, fuzzed.config);
          // Our own pages' forms, sent the way a browser sends them: a person reads every answer.
          expect(outcome.response.headers['content-type'] ?? '', explain(request, outcome.response)).not.to.match(
            /json/,
          );
        }),
        { numRuns: 150 },
      );
    });

    it('sees a write in its snapshot of the database, so that "writes nothing" means something', async () => {
      const body = JSON.stringify({ email: SEEDED_EMAIL, password: PASSWORD });
      const { response, before, after } = await fuzzed.exercise({
        method: 'POST',
        path: '/service-auth/login',
        headers: { 'Content-Type': 'application/json' },
        body,
      });
      expect(response.status).to.equal(200);
      expect(after, 'a login stores a session').not.to.deep.equal(before);
    });

    describe('regressions found by fuzzing', () => {
      const expectNotFoundProblem = (response: FuzzResponse) => {
        expect(response.status, response.text.slice(0, 300)).to.equal(404);
        expect(response.headers['content-type'], response.text.slice(0, 300)).to.match(/^application\/problem\+json/);
        expect(JSON.parse(response.text)).to.include({ code: 'not_found', status: 404 });
      };

      it('answers a program that opens the revoke page of an unknown token with a 404 problem, not the HTML page', async () => {
        // Found as GET /service-auth/tokens/!/revoke with a valid bearer token (and a JSON body,
        // which does not matter); a session cookie with Accept: application/json fares the same.
        expectNotFoundProblem(
          await fuzzed.send({
            method: 'GET',
            path: '/service-auth/tokens/!/revoke',
            headers: { Authorization: 'Bearer {{TOKEN}}' },
          }),
        );
        const json = { Accept: 'application/json', Cookie: '{{SESSION}}' };
        expectNotFoundProblem(
          await fuzzed.send({ method: 'GET', path: '/service-auth/tokens/unknown/revoke', headers: json }),
        );
      });

      it("answers an unknown path under the prefix with a 404 problem even when it reads as an authority ('//a@b#')", async () => {
        // Found as the first (a raw `#` in the request target: browsers and curl never send one,
        // a hand-written client may); the second is the shortest that shows it.
        const json = { 'Content-Type': 'application/json' };
        expectNotFoundProblem(
          await fuzzed.send({ method: 'POST', path: '/service-auth//register?token=#@!', headers: json, body: '{}' }),
        );
        expectNotFoundProblem(await fuzzed.send({ method: 'GET', path: '/service-auth//a@b#', headers: {} }));
      });

      it('checks a path with a backslash against the document as Express reads it: one segment, not a slash', async () => {
        // Found as this request: the check had read the path through a URL parser (`\` → `/`) and
        // looked up `/tokens///revoke`, which the document does not describe; Express had routed it
        // to `/tokens/{id}/revoke` with the id `\`, whose 401 the document lists.
        const request = {
          method: 'GET',
          path: '/service-auth/tokens/\\/revoke',
          headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
          body: `email=fuzz%40example.com&password=${PASSWORD}`,
        };
        const outcome = await fuzzed.exercise(request);
        expect(outcome.response.status).to.equal(401);
        checkOutcome(outcome, fuzzed.config);
      });

      it('checks a path with a fragment against the document as Express reads it: without the fragment', async () => {
        // Found as `POST /service-auth/register/#` (answered by /register, here 409 for the taken
        // address; 429 when found): the check had kept the `#` and looked for an unknown path.
        const body = JSON.stringify({ email: SEEDED_EMAIL, password: PASSWORD });
        const outcome = await fuzzed.exercise({
          method: 'POST',
          path: '/service-auth/register/#',
          headers: { 'Content-Type': 'application/json' },
          body,
        });
        expect(outcome.response.status).to.equal(409);
        checkOutcome(outcome, fuzzed.config);
      });

      it("serves a mailed link's page (GET /confirm-email, /confirm) to a client that asked for nothing in particular", async () => {
        // Found as GET /service-auth/confirm-email with no Accept: the check knew only part 1's
        // pages. Page URLs now come from the document's `pages`, so a new page cannot be missed.
        for (const path of ['/service-auth/confirm-email', '/service-auth/confirm?token=x']) {
          const outcome = await fuzzed.exercise({ method: 'GET', path, headers: {} });
          expect(outcome.response.status).to.equal(200);
          expect(outcome.response.headers['content-type']).to.match(/^text\/html/);
          checkOutcome(outcome, fuzzed.config);
        }
      });
    });
  });

  describe('with rate limits on', () => {
    let fuzzed: Fuzzed;
    before(async () => {
      fuzzed = await startFuzzed({});
    });
    after(() => fuzzed.close());

    it('answers with a documented problem code once the limits refuse, never a 500, and writes nothing when it refuses', async () => {
      await fc.assert(
        fc.asyncProperty(anyRequest(), async (request) => checkOutcome(await fuzzed.exercise(request), fuzzed.config)),
        { numRuns: 100 },
      );
    });
  });
});
