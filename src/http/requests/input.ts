/**
 * What a request may bring in. Bodies are JSON or urlencoded, at most 16 KiB (a larger one is 413
 * `payload_too_large`, bounded at the door: body-limits.ts); a body that cannot be read (malformed,
 * a compression that does not decompress, an unknown charset) is a 400 `bad_request`. Text that no
 * field of ours can hold (a NUL, which SQLite and C libraries read as
 * the end of a string, or ill-formed Unicode, which decoding or encoding turns into U+FFFD so that
 * two different inputs become one) is refused before it reaches a query, a hash or a log line.
 */
import express, { type Request, type RequestHandler } from 'express';
import { AuthError, ValidationError } from '../../errors.js';
import { payloadTooLarge } from './body-limits.js';

/** The most a body may carry: 16 KiB, as sent and as decompressed. */
export const BODY_LIMIT_BYTES = 16 * 1024;

/** Raised while reading a body whose bytes are not well-formed UTF-8, naming the fields where known. */
class IllFormedBody extends Error {
  constructor(readonly fields: string[]) {
    super('the body is not well-formed UTF-8');
  }
}

const strictUtf8 = new TextDecoder('utf-8', { fatal: true });

/**
 * body-parser decodes bytes that are not UTF-8 into U+FFFD, and leaves a %-escape that does not
 * decode (`%ED%A0%80`, half a surrogate pair) as the literal text: either way what arrives is not
 * what was sent. Checked on the raw bytes, before parsing.
 */
const jsonIsUtf8 = (_req: unknown, _res: unknown, body: Buffer, encoding: string): void => {
  if (encoding.toLowerCase() !== 'utf-8') return;
  try {
    strictUtf8.decode(body);
  } catch {
    throw new IllFormedBody([]);
  }
};
const formIsUtf8 = (_req: unknown, _res: unknown, body: Buffer): void => {
  try {
    strictUtf8.decode(body);
  } catch {
    throw new IllFormedBody([]);
  }
  const fields: string[] = [];
  for (const pair of body.toString('latin1').split('&')) {
    const [name = '', value = ''] = pair.split('=');
    const decodes = (text: string) => {
      try {
        decodeURIComponent(text.replace(/\+/g, ' '));
        return true;
      } catch {
        return false;
      }
    };
    if (!decodes(name) || !decodes(value))
      fields.push(decodes(name) ? decodeURIComponent(name.replace(/\+/g, ' ')) : name);
  }
  if (fields.length) throw new IllFormedBody(fields);
};

const parseJson = express.json({ limit: BODY_LIMIT_BYTES, verify: jsonIsUtf8 });
const parseForm = express.urlencoded({ extended: false, limit: BODY_LIMIT_BYTES, verify: formIsUtf8 });

/** Parses the body (unless the application already did), then refuses text we cannot hold. */
export const readBody: RequestHandler = (req, res, next) => {
  parseJson(req, res, (jsonError?: unknown) => {
    if (jsonError) {
      next(unreadableBody(jsonError));
      return;
    }
    parseForm(req, res, (formError?: unknown) => {
      if (formError) {
        next(unreadableBody(formError));
        return;
      }
      const problems = unholdableFields(req.body);
      next(problems.length ? new ValidationError(problems) : undefined);
    });
  });
};

/**
 * The longest path segment we read: the longest id a route takes (a passkey's credential id, up to
 * 1400 characters as stored). Longer, it can name nothing of ours.
 */
export const MAX_PATH_SEGMENT = 1400;

/**
 * First in the auth router, before any route and any query: every segment of the path, and so every
 * parameter of every route (whichever router declares it), must decode, hold only text we can hold,
 * and be no longer than MAX_PATH_SEGMENT. One check, so that no route can forget it.
 */
export const checkPath: RequestHandler = (req, _res, next) => {
  next(req.path.split('/').map(segmentProblem).find(Boolean));
};

function segmentProblem(segment: string): AuthError | undefined {
  let value: string;
  try {
    value = decodeURIComponent(segment);
  } catch {
    return new AuthError('bad_request', 'The path is not valid: a %-escape in it does not decode');
  }
  if (!holdable(value)) return new ValidationError([{ field: 'path', message: UNHOLDABLE }]);
  if (value.length > MAX_PATH_SEGMENT)
    return new ValidationError([
      { field: 'path', message: `each segment must be at most ${MAX_PATH_SEGMENT} characters` },
    ]);
  return undefined;
}

/** The body as an object (an array, a string or nothing count as an empty one). */
function bodyOf(req: Request): Record<string, unknown> {
  const body: unknown = req.body;
  return body !== null && typeof body === 'object' && !Array.isArray(body) ? (body as Record<string, unknown>) : {};
}

/** A string field of the body, if it is one: what a refused form showed, to show it again. */
export function textField(req: Request, name: string): string | null {
  const value = bodyOf(req)[name];
  return typeof value === 'string' ? value : null;
}

const UNHOLDABLE = 'must not contain NUL characters or lone surrogates';

function holdable(text: string): boolean {
  return !text.includes('\u0000') && text.isWellFormed();
}

/** Every field (by its top-level name) whose value or key, at any depth, has text we cannot hold. */
function unholdableFields(body: unknown): { field: string; message: string }[] {
  if (body === null || typeof body !== 'object') return [];
  const problems: { field: string; message: string }[] = [];
  for (const [key, value] of Object.entries(body)) {
    if (!holdable(key) || containsUnholdable(value))
      problems.push({ field: holdable(key) ? key : JSON.stringify(key), message: UNHOLDABLE });
  }
  return problems;
}

function containsUnholdable(value: unknown): boolean {
  if (typeof value === 'string') return !holdable(value);
  if (value === null || typeof value !== 'object') return false;
  return Object.entries(value).some(([key, item]) => !holdable(key) || containsUnholdable(item));
}

/**
 * body-parser's refusals carry a 4xx status and a `type`; a compression that does not decompress
 * arrives as zlib's own error. A body over the parser's limit is 413 `payload_too_large` naming
 * that limit (the application's own, when its parser refused it); every other one is a 400.
 */
export function unreadableBody(error: unknown): AuthError {
  if (error instanceof IllFormedBody) {
    return error.fields.length
      ? new ValidationError(
          error.fields.map((field) => ({
            field,
            message: 'must be text: its %-escapes do not decode to well-formed UTF-8',
          })),
        )
      : new AuthError('bad_request', 'The request body is not well-formed UTF-8');
  }
  const { type, limit } = (error ?? {}) as { type?: unknown; limit?: unknown };
  if (type === 'entity.too.large') return payloadTooLarge(typeof limit === 'number' ? limit : BODY_LIMIT_BYTES, false);
  const detail =
    type === 'entity.parse.failed'
      ? 'The request body is not valid JSON'
      : `The request body could not be read${typeof type === 'string' ? ` (${type})` : ''}`;
  return new AuthError('bad_request', detail);
}
