/**
 * The fuzz suite's harness: a real app on a real port with a seeded user, a request as plain data
 * (what fast-check prints when it shrinks a failure, and what a regression case copies), a sender
 * that puts exactly those bytes on a connection of its own, and snapshots of the database around
 * it. The credentials a request may carry are placeholders, filled in when it is sent, since a
 * successful logout, revocation or reset replaces them between runs:
 *
 * - `{{SESSION}}`: the seeded user's session cookie (`name=value`);
 * - `{{TOKEN}}` and `{{TOKEN_ID}}`: the seeded user's API token, and its public id;
 * - `{{OTHER_TOKEN_ID}}`: the id of another user's token, which the seeded user may not revoke;
 * - `{{RESET}}`: a current password-reset token of the seeded user (in a body or a query too);
 * - `{{FORGED:<hex>}}`: a token with the seeded token's id and a right checksum, but another secret;
 * - `{{SELF}}`: the server's own origin.
 */
import type { AuthConfig } from '../../src/config/config.js';
import { createServer, request as httpRequest, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';
import { brotliCompressSync, deflateSync, gzipSync } from 'node:zlib';
import { assembleToken } from '../../src/tokens/format.js';
import { createTestApp, PASSWORD, type TestApp } from '../helpers/app.js';

export interface FuzzRequest {
  method: string;
  /** The request target as sent, `/service-auth…`, query included. */
  path: string;
  headers: Record<string, string>;
  /** The body's text, sent as UTF-8 (so a lone surrogate goes out as U+FFFD). */
  body?: string;
  /** Or the body's bytes. */
  raw?: number[];
  /** The body compressed so before it is sent, whatever Content-Encoding says. */
  compress?: 'gzip' | 'deflate' | 'br';
  /** Sent in two chunks (Transfer-Encoding: chunked) instead of with a Content-Length. */
  chunked?: boolean;
}

interface Credentials {
  cookie: string;
  token: string;
  tokenId: string;
  otherTokenId: string;
  reset: string;
  origin: string;
}

export interface FuzzResponse {
  status: number;
  headers: IncomingHttpHeaders;
  text: string;
}

/** The seeded user, whose credentials the placeholders stand for. */
export const SEEDED_EMAIL = 'fuzz@example.com';

/** What the server received: the checks judge the request as it arrived, not as it was meant. */
export interface Received {
  method: string;
  url: string;
  headers: IncomingHttpHeaders;
}

export type Snapshot = Record<string, Record<string, unknown>[]>;

/** A request sent, what the server made of it, and the database before and after. */
export interface Outcome {
  request: FuzzRequest;
  received: Received | undefined;
  response: FuzzResponse;
  before: Snapshot;
  after: Snapshot;
}

/** One app on a real port, with a user who has a session, a token and a reset token. */
export interface Fuzzed {
  /** The configuration of the app under test (its OpenAPI description is built from it). */
  config: AuthConfig;
  /** Sends the request, placeholders filled in, and only that. */
  send(request: FuzzRequest): Promise<FuzzResponse>;
  /** Sends the request between two snapshots; after a success, replaces the credentials it ended. */
  exercise(request: FuzzRequest): Promise<Outcome>;
  close(): Promise<void>;
}

export async function startFuzzed(settings: Record<string, unknown>): Promise<Fuzzed> {
  const t = await createTestApp(settings);
  let received: Received | undefined;
  const server = createServer((req, res) => {
    received = { method: req.method!, url: req.url!, headers: req.headers };
    t.app(req, res);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;

  let user = await t.auth.users.create({ email: SEEDED_EMAIL, password: PASSWORD });
  await t.auth.users.create({ email: 'other@example.com', password: PASSWORD });
  const otherTokenId = (await t.auth.tokens.create('other@example.com', { name: 'not yours' })).id;
  const credentials: Credentials = {
    cookie: '',
    token: '',
    tokenId: '',
    otherTokenId,
    reset: '',
    origin: `http://127.0.0.1:${port}`,
  };
  const body = JSON.stringify({ email: SEEDED_EMAIL, password: PASSWORD });
  const login = await send(port, credentials, {
    method: 'POST',
    path: '/service-auth/login',
    headers: { 'Content-Type': 'application/json' },
    body,
  });
  if (login.status !== 200) throw new Error(`the seeded user could not log in: ${login.status} ${login.text}`);
  credentials.cookie = String(login.headers['set-cookie']?.[0]?.split(';')[0]);
  const newToken = async () => {
    const created = await t.auth.tokens.create(SEEDED_EMAIL, { name: 'fuzz' });
    Object.assign(credentials, { token: created.token, tokenId: created.id });
  };
  await newToken();
  credentials.reset = await t.parts.resetTokens.issue(user.id);

  // A successful logout, login, revocation, reset or reset request may end the session, the token
  // or the reset token the next runs use; a password change changes the password, and deleting
  // the account takes the user: each is put back.
  const renew = async () => {
    const found = await t.auth.users.findByEmail(SEEDED_EMAIL);
    if (!found) user = await t.auth.users.create({ email: SEEDED_EMAIL, password: PASSWORD });
    else if (!(await t.auth.users.authenticate(SEEDED_EMAIL, PASSWORD)))
      await t.auth.users.setPassword(SEEDED_EMAIL, PASSWORD);
    if (!(await t.parts.sessions.find(credentials.cookie.split('=')[1]!))) {
      credentials.cookie = `${t.parts.cookie.name}=${(await t.parts.sessions.create(user.id)).id}`;
    }
    if (!(await t.parts.verifier.verify(credentials.token))) await newToken();
    if ((await t.parts.resetTokens.userOf(credentials.reset)) === null)
      credentials.reset = await t.parts.resetTokens.issue(user.id);
  };

  return {
    config: t.auth.config,
    send: (request) => send(port, credentials, request),
    async exercise(request) {
      await settle(t);
      const before = await snapshot(t);
      received = undefined;
      const response = await send(port, credentials, request);
      await settle(t);
      const outcome = { request, received, response, before, after: await snapshot(t) };
      if (response.status < 400 && !['GET', 'HEAD', 'OPTIONS'].includes(request.method)) await renew();
      return outcome;
    },
    async close() {
      await new Promise((resolve) => server.close(resolve));
      await t.auth.close();
    },
  };
}

/**
 * Lets the work a response leaves behind reach the database (a reset request is handled after its
 * 202; a token's `last_used_at` and a session's `last_seen_at` are written every 30 s), so that it
 * is not taken for the next request's.
 */
async function settle(t: TestApp): Promise<void> {
  await t.parts.background.flush();
  await t.parts.verifier.flush();
  await t.parts.sessions.flush();
}

/** Every row of every table of ours but the migrations', in a stable order. */
async function snapshot(t: TestApp): Promise<Snapshot> {
  const connection = (await t.parts.storage.em()).getConnection();
  const tables = await connection.execute<{ name: string }[]>(
    "select name from sqlite_master where type = 'table' and name like 'service_auth_%' and name not like 'service_auth_migrations%' order by name",
  );
  const result: Snapshot = {};
  for (const { name } of tables) {
    const rows = await connection.execute<Record<string, unknown>[]>(`select * from "${name}"`);
    result[name] = rows.sort((a, b) => JSON.stringify(a).localeCompare(JSON.stringify(b)));
  }
  return result;
}

/** Sends the request on a connection of its own, placeholders filled in, and reads the whole answer. */
function send(port: number, credentials: Credentials, request: FuzzRequest): Promise<FuzzResponse> {
  const fill = (value: string) =>
    value.replace(
      /\{\{(SESSION|OTHER_TOKEN_ID|TOKEN_ID|TOKEN|RESET|SELF|FORGED:([0-9a-f]+))\}\}/g,
      (_all, name: string, secret?: string) => {
        if (secret) return assembleToken('sat', credentials.tokenId, Buffer.from(secret, 'hex'));
        const { cookie, token, tokenId, otherTokenId, reset, origin } = credentials;
        return {
          SESSION: cookie,
          TOKEN: token,
          TOKEN_ID: tokenId,
          OTHER_TOKEN_ID: otherTokenId,
          RESET: reset,
          SELF: origin,
        }[name]!;
      },
    );
  const headers = Object.fromEntries(Object.entries(request.headers).map(([name, value]) => [name, fill(value)]));
  let bytes = request.raw
    ? Buffer.from(request.raw)
    : request.body !== undefined
      ? Buffer.from(fill(request.body), 'utf8')
      : undefined;
  if (bytes && request.compress)
    bytes = { gzip: gzipSync, deflate: deflateSync, br: brotliCompressSync }[request.compress](bytes);
  if (bytes && request.chunked) headers['Transfer-Encoding'] = 'chunked';
  else if (bytes) headers['Content-Length'] = String(bytes.length);
  return new Promise((resolve, reject) => {
    const outgoing = httpRequest(
      { host: '127.0.0.1', port, method: request.method, path: fill(request.path), headers, agent: false },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (chunk: Buffer) => chunks.push(chunk));
        res.on('end', () =>
          resolve({ status: res.statusCode!, headers: res.headers, text: Buffer.concat(chunks).toString('utf8') }),
        );
        res.on('error', reject);
      },
    );
    outgoing.on('error', reject);
    if (bytes && request.chunked) outgoing.write(bytes.subarray(0, bytes.length >> 1));
    outgoing.end(bytes && request.chunked ? bytes.subarray(bytes.length >> 1) : bytes);
  });
}
