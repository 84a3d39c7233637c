/**
 * Bodies bounded at the door, over real sockets: a body declared over 16 KiB, or sent past it
 * without a length, is 413 at once; a body that has not arrived whole by the deadline is 408,
 * however steadily it trickles; both close the connection, without waiting for the rest.
 */
import { expect } from 'chai';
import { once } from 'node:events';
import type { Server } from 'node:http';
import { connect, type AddressInfo } from 'node:net';
import { gzipSync } from 'node:zlib';
import request from 'supertest';
import { createTestApp, type TestApp } from '../helpers/app.js';
import { PROBLEM } from '../helpers/problems.js';

interface Exchange {
  /** What the server sent, head and body. */
  text: string;
  /** Whether the server closed the connection within a second and a half. */
  closed: boolean;
  /** Bytes of body the client had written when the answer began. */
  sentBeforeAnswer: number;
}

/**
 * Sends `head` and then, every `everyMs`, the next piece of `pieces` (none: the body never
 * comes), and never ends its side; returns once the server has closed the connection, or after a
 * second and a half if it has not.
 */
async function exchange(server: Server, head: string, pieces: string[] = [], everyMs = 20): Promise<Exchange> {
  const socket = connect((server.address() as AddressInfo).port, '127.0.0.1');
  await once(socket, 'connect');
  let text = '';
  let sent = 0;
  let sentBeforeAnswer = -1;
  socket.on('data', (chunk: Buffer) => {
    if (sentBeforeAnswer < 0) sentBeforeAnswer = sent;
    text += chunk.toString('latin1');
  });
  socket.on('error', () => undefined); // a write after the server closed: expected
  socket.write(head);
  const trickle = setInterval(() => {
    const piece = pieces.shift();
    if (piece === undefined || socket.destroyed) return;
    socket.write(piece);
    sent += Buffer.byteLength(piece);
  }, everyMs);
  let deadline: NodeJS.Timeout | undefined;
  const closed = await Promise.race([
    once(socket, 'close').then(() => true),
    new Promise<false>((resolve) => (deadline = setTimeout(resolve, 1500, false))),
  ]);
  clearTimeout(deadline);
  clearInterval(trickle);
  socket.destroy();
  return { text, closed, sentBeforeAnswer };
}

function head(lines: string[]): string {
  return [
    'POST /service-auth/login HTTP/1.1',
    'Host: localhost',
    'Content-Type: application/json',
    ...lines,
    '',
    '',
  ].join('\r\n');
}

/** The status, the headers (lower-cased names) and the JSON body of an HTTP/1.1 answer. */
function parse(text: string): { status: number; headers: Record<string, string>; body: Record<string, unknown> } {
  const [top = '', body = ''] = text.split('\r\n\r\n');
  const [statusLine = '', ...lines] = top.split('\r\n');
  const headers = Object.fromEntries(
    lines.map((line) => [line.slice(0, line.indexOf(':')).toLowerCase(), line.slice(line.indexOf(':') + 1).trim()]),
  );
  return { status: Number(statusLine.split(' ')[1]), headers, body: JSON.parse(body) as Record<string, unknown> };
}

describe('bodies bounded at the door', () => {
  let t: TestApp;
  let server: Server;
  before(async () => {
    t = await createTestApp({ SERVICE_AUTH_RATE_LIMIT_ENABLED: false, SERVICE_AUTH_BODY_TIMEOUT_MS: 300 });
    server = t.app.listen(0, '127.0.0.1');
    await once(server, 'listening');
  });
  after(async () => {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
    await t.auth.close();
  });

  it('answers a declared length over 16 KiB with 413 payload_too_large at once, and closes the connection without reading the body', async () => {
    const { text, closed, sentBeforeAnswer } = await exchange(
      server,
      head(['Content-Length: 1000000000000']),
      ['{"email":', '"a@example.com"'],
      100,
    );
    const answer = parse(text);
    expect(answer.status).to.equal(413);
    expect(answer.headers['content-type']).to.match(PROBLEM);
    expect(answer.headers['connection']).to.equal('close');
    expect(answer.body).to.include({
      status: 413,
      code: 'payload_too_large',
      detail: 'The request body is larger than 16 KiB',
    });
    expect(sentBeforeAnswer, 'answered before any of the body was sent').to.equal(0);
    expect(closed).to.equal(true);
  });

  it('answers a body sent without a length (chunked) with 413 once more than 16 KiB has come, not when it ends', async () => {
    const chunk = `${(17 * 1024).toString(16)}\r\n${'x'.repeat(17 * 1024)}\r\n`;
    const { text, closed } = await exchange(
      server,
      head(['Transfer-Encoding: chunked']) + chunk,
      Array.from({ length: 100 }, () => '1\r\nx\r\n'),
    );
    expect(parse(text).body).to.include({ status: 413, code: 'payload_too_large' });
    expect(parse(text).headers['connection']).to.equal('close');
    expect(closed).to.equal(true);
  });

  it('answers a body that trickles in slower than the deadline allows with 408 request_timeout, and closes the connection', async () => {
    // 1,000 bytes promised, one every 20 ms: each byte would reset an idle timeout; the deadline holds.
    const { text, closed, sentBeforeAnswer } = await exchange(
      server,
      head(['Content-Length: 1000']),
      Array.from({ length: 1000 }, () => ' '),
    );
    const answer = parse(text);
    expect(answer.status).to.equal(408);
    expect(answer.headers['connection']).to.equal('close');
    expect(answer.body).to.include({
      status: 408,
      code: 'request_timeout',
      detail: 'The request body did not arrive within 0.3 seconds',
    });
    // Bytes kept arriving (an idle timeout would never have fired) and the answer came before the
    // body was whole: the deadline, not the byte count, ended it. How many bytes a loaded machine's
    // 20 ms timers get out in 0.3 s is not asserted.
    expect(sentBeforeAnswer, 'the body was still arriving').to.be.within(2, 999);
    expect(closed).to.equal(true);
  });

  it('reads a body that arrives in pieces within the deadline, as any other', async () => {
    const body = JSON.stringify({ email: 'nobody@example.com', password: 'Not-The-Password-1' });
    const { text } = await exchange(server, head([`Content-Length: ${body.length}`, 'Connection: close']), [
      body.slice(0, 10),
      body.slice(10),
    ]);
    expect(parse(text).body).to.include({ status: 401, code: 'invalid_credentials' });
  });

  it('answers a compressed body that expands past 16 KiB with 413 payload_too_large', async () => {
    const body = gzipSync(JSON.stringify({ email: 'a@example.com', password: 'x'.repeat(20_000) }));
    expect(body.length).to.be.below(1024);
    const response = await request(server)
      .post('/service-auth/login')
      .set('Content-Type', 'application/json')
      .set('Content-Encoding', 'gzip')
      .serialize((bytes: Buffer) => bytes as unknown as string)
      .send(body)
      .expect(413);
    expect(response.body).to.include({ code: 'payload_too_large', detail: 'The request body is larger than 16 KiB' });
  });
});
