/**
 * Errors with a status and a stable `code`, and the middleware that turns them into RFC 9457
 * problem details. Clients branch on `code`; `title` and `detail` are for people.
 */
import { DriverException } from '@mikro-orm/core';
import type { ErrorRequestHandler, Request, Response } from 'express';
import type { Logger } from './logger.js';

const PROBLEMS = {
  bad_request: [400, 'Bad Request'],
  invalid_reset_token: [400, 'Invalid reset token'],
  unauthenticated: [401, 'Unauthenticated'],
  invalid_credentials: [401, 'Invalid credentials'],
  invalid_token: [401, 'Invalid token'],
  forbidden: [403, 'Forbidden'],
  insufficient_scope: [403, 'Insufficient scope'],
  csrf_rejected: [403, 'Cross-site request rejected'],
  session_required: [403, 'Session required'],
  not_found: [404, 'Not Found'],
  email_taken: [409, 'Email taken'],
  token_limit: [409, 'Token limit reached'],
  invalid_email: [422, 'Invalid email'],
  password_rules: [422, 'Password rules not met'],
  rate_limited: [429, 'Too Many Requests'],
  internal_error: [500, 'Internal Server Error'],
  unavailable: [503, 'Service Unavailable'],
} as const satisfies Record<string, readonly [number, string]>;

export type ErrorCode = keyof typeof PROBLEMS;

/** One entry of a problem's `errors` list: a field for `bad_request`, a rule for `password_rules`. */
export type ProblemItem = { field: string; message: string } | { rule: string; message: string };

export interface ProblemDetails {
  type: 'about:blank';
  title: string;
  status: number;
  detail: string;
  code: ErrorCode;
  errors?: ProblemItem[];
}

export class AuthError extends Error {
  override name = 'AuthError';
  readonly status: number;
  readonly title: string;

  constructor(
    readonly code: ErrorCode,
    detail: string,
    readonly errors?: ProblemItem[],
    /** Extra response headers, e.g. `Retry-After` or `WWW-Authenticate`. */
    readonly headers: Record<string, string> = {},
  ) {
    super(detail);
    [this.status, this.title] = PROBLEMS[code];
  }

  toProblem(): ProblemDetails {
    const problem: ProblemDetails = { type: 'about:blank', title: this.title, status: this.status, detail: this.message, code: this.code };
    if (this.errors) problem.errors = this.errors;
    return problem;
  }
}

/** A body field that is missing, mistyped or out of range. */
export class ValidationError extends AuthError {
  override name = 'ValidationError';

  constructor(readonly fieldErrors: { field: string; message: string }[]) {
    super('bad_request', fieldErrors.map((e) => `${e.field}: ${e.message}`).join('; '), fieldErrors);
  }
}

export interface PasswordRuleFailure {
  rule: 'min_length' | 'max_length' | 'uppercase' | 'lowercase' | 'digit' | 'special' | 'blocklisted';
  message: string;
}

/** Every password rule that failed, reported at once. */
export class PasswordRulesError extends AuthError {
  override name = 'PasswordRulesError';

  constructor(readonly failures: PasswordRuleFailure[]) {
    super('password_rules', failures.map((f) => f.message).join('; '), failures);
  }
}

export function sendProblem(res: Response, error: AuthError): void {
  res.status(error.status);
  for (const [name, value] of Object.entries(error.headers)) res.setHeader(name, value);
  res.type('application/problem+json').send(JSON.stringify(error.toProblem()));
}

/**
 * The 4-argument error middleware: AuthErrors become their problem details, body-parser failures
 * a 400, and anything else an opaque 500 whose details go to the log, never to the client.
 */
export function problemHandler(logger: Logger): ErrorRequestHandler {
  return (err: unknown, req, res, next) => {
    if (res.headersSent) {
      next(err);
      return;
    }
    // The path without its query string: a query may carry a secret (a reset link's token).
    sendProblem(res, toAuthError(err, logger, `${req.method} ${req.baseUrl}${req.path}`));
  };
}

function toAuthError(err: unknown, logger: Logger, where: string): AuthError {
  if (err instanceof AuthError) return err;
  // body-parser's refusals (malformed JSON, too large, too many parameters, unknown encoding)
  // carry a 4xx status and a message meant for the client.
  const bodyError = err as { type?: unknown; status?: unknown; message?: unknown } | null;
  if (typeof bodyError?.type === 'string' && typeof bodyError.status === 'number' && bodyError.status >= 400 && bodyError.status < 500) {
    const detail = bodyError.type === 'entity.parse.failed' ? 'The request body is not valid JSON' : `The request body could not be read: ${String(bodyError.message)}`;
    return new AuthError('bad_request', detail);
  }
  logger.error(`unexpected error in ${where}`, loggable(err));
  return new AuthError('internal_error', 'An unexpected error occurred');
}

// Network failures, and PostgreSQL's connection exceptions (class 08) and shutdown states.
const UNREACHABLE_CODES = /^(ECONNREFUSED|ECONNRESET|ETIMEDOUT|EHOSTUNREACH|ENETUNREACH|ENOTFOUND|EAI_AGAIN|EPIPE|08[0-9A-Z]{3}|57P0[123])$/;

/**
 * A database error that says "not reachable now" rather than "this request went wrong": the
 * server is down or restarting, or the network to it is, and retrying later can succeed, so the
 * client is told 503, not 500. (A connection lost during a commit can leave the write done.)
 */
export function isDatabaseUnreachable(error: unknown): boolean {
  if (!(error instanceof DriverException)) return false;
  // node-postgres reports a connection dropped mid-query without a code.
  return UNREACHABLE_CODES.test(String(error.code ?? '')) || /Connection terminated|Timeout acquiring a connection/i.test(error.message);
}

/** For `error` from our database being out of reach: a 503 `unavailable`, logged; else nothing. */
export function databaseUnavailable(error: unknown, logger: Logger, req: Request): AuthError | undefined {
  if (!isDatabaseUnreachable(error)) return undefined;
  logger.error(`database unreachable in ${req.method} ${req.baseUrl}${req.path}`, loggable(error));
  return new AuthError('unavailable', 'The service is briefly unavailable; retry shortly', undefined, { 'Retry-After': '5' });
}

/**
 * Error middleware that turns our database being out of reach into 503 `unavailable` for the
 * handlers after it (a page for a browser's form, problem details for the rest).
 */
export function databaseOutages(logger: Logger): ErrorRequestHandler {
  return (err: unknown, req, _res, next) => next(databaseUnavailable(err, logger, req) ?? err);
}

/**
 * What may be logged of an error. A database error's message is "<statement with its values> -
 * <driver message>", and the values can be password hashes or token hashes: keep the driver's part.
 */
export function loggable(error: unknown): unknown {
  if (!(error instanceof DriverException)) return error;
  const safe = new Error(`${error.name} (${String(error.code ?? 'no code')}): ${error.message.split(' - ').pop() ?? ''}`);
  safe.name = error.name;
  safe.stack = [`${safe.name}: ${safe.message}`, ...(error.stack ?? '').split('\n').filter((line) => line.trimStart().startsWith('at '))].join('\n');
  return safe;
}
