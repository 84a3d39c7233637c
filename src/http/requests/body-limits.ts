/**
 * Bodies bounded at the door, so that no request can hold a connection (and the memory of a
 * pending request) by promising a body it sends slowly or never:
 *
 * - a declared `Content-Length` over the limit is 413 `payload_too_large` before a byte is read;
 * - a body without a declared length (chunked) is 413 as soon as more than the limit has arrived;
 * - a body that has not arrived whole within the deadline is 408 `request_timeout`, however
 *   steadily it trickles (a deadline for the whole body, not an idle timeout that each byte resets).
 *
 * Each of these answers closes the connection (RFC 9110 §15.5.9, §15.5.14): what the client is
 * still sending is not read. body-parser, left alone, reads a refused body to its end before it
 * answers; with the answer sent, its late callback is ignored.
 */
import type { Request, RequestHandler } from 'express';
import { AuthError } from '../../errors.js';

export interface BodyLimits {
  /** The most a body may carry, in bytes, as sent (before any decompression). */
  bytes: number;
  /** How long the whole body may take to arrive, from when the router starts reading it. */
  timeoutMs: number;
}

/** `read` (a body parser), with the request's body bounded in size and in time. */
export function boundedBody(read: RequestHandler, limits: BodyLimits): RequestHandler {
  return (req, res, next) => {
    if (!bodyToCome(req)) {
      read(req, res, next);
      return;
    }
    if (Number(req.headers['content-length']) > limits.bytes) {
      next(payloadTooLarge(limits.bytes, true));
      return;
    }
    let settled = false;
    let received = 0;
    const settle = (error?: unknown) => {
      if (settled) return;
      settled = true;
      clearTimeout(deadline);
      req.off('data', count);
      next(error);
    };
    const deadline = setTimeout(() => settle(requestTimeout(limits.timeoutMs)), limits.timeoutMs);
    // Counted beside the parser, which only learns the size of a chunked body once it has read all of it.
    const count = (chunk: Buffer) => {
      received += chunk.length;
      if (received > limits.bytes) settle(payloadTooLarge(limits.bytes, true));
    };
    // Attached in the same tick as the parser's own listener: neither misses a chunk.
    req.on('data', count);
    read(req, res, settle);
  };
}

/**
 * Whether the request still has a body to read: it announced one, and nobody (the application's
 * own parser) has read it yet.
 */
function bodyToCome(req: Request): boolean {
  const announced = req.headers['transfer-encoding'] !== undefined || req.headers['content-length'] !== undefined;
  return announced && !req.readableEnded;
}

/**
 * 413 `payload_too_large`, naming the limit; `close` when the body is not read (ours), not when
 * the application's parser refused it after reading it.
 */
export function payloadTooLarge(limitBytes: number, close: boolean): AuthError {
  const limit = limitBytes % 1024 === 0 ? `${limitBytes / 1024} KiB` : `${limitBytes} bytes`;
  return new AuthError(
    'payload_too_large',
    `The request body is larger than ${limit}`,
    undefined,
    close ? { Connection: 'close' } : {},
  );
}

function requestTimeout(timeoutMs: number): AuthError {
  const seconds = timeoutMs / 1000;
  return new AuthError(
    'request_timeout',
    `The request body did not arrive within ${seconds} second${seconds === 1 ? '' : 's'}`,
    undefined,
    { Connection: 'close' },
  );
}
