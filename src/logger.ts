/**
 * Where the package writes its log lines, and how. A line about an error reaches each logger in
 * the form it understands:
 *
 * - pino (told by its API: `child`, `bindings()` and `levels.values`):
 *   `logger.error({ err, req: { method, path, id } }, message)`, pino's own convention, so its
 *   `err` serializer gives the error's type, message and stack;
 * - winston (told by its API: `child`, `log`, `add` and `transports`):
 *   `logger.error(message, { err, req })`, with `err` a copy of the error whose `message` and
 *   `stack` are enumerable, so that `format.json()` writes them (it writes an Error as `{}`);
 * - anything else (`console`, the default logger): one string, the message, the request, then the
 *   error's name, message and stack frames: a line the console keeps whole.
 *
 * User input in a string line is quoted with its control characters escaped, so that nobody can
 * write a line of their own into the log; structured loggers escape what they write as JSON. A
 * database error's statement and its values (they can be password or token hashes) reach no
 * logger: only the driver's own message is kept. Nor does an object an error carries (MikroORM's
 * ValidationError carries the entity, and prints it in its message): only plain values.
 */
import { DriverException, ValidationError } from '@mikro-orm/core';

/** The little the package needs of a logger: `console`, pino and winston loggers all fit. */
export interface Logger {
  info(message: string, ...details: unknown[]): void;
  warn(message: string, ...details: unknown[]): void;
  error(message: string, ...details: unknown[]): void;
}

/** Writes to the console with a `[service-auth]` prefix. */
export const consoleLogger: Logger = {
  info: (message, ...details) => console.info(`[service-auth] ${message}`, ...details),
  warn: (message, ...details) => console.warn(`[service-auth] ${message}`, ...details),
  error: (message, ...details) => console.error(`[service-auth] ${message}`, ...details),
};

/** Whatever holds the current logger (an application may replace it at any time). */
export interface LoggerHolder {
  readonly logger: Logger;
}

/** The request a line is about: its method, its path without the query string, and its id if it has one. */
export interface RequestFacts {
  method: string;
  path: string;
  id?: string | number;
}

/**
 * Logs `message` about `error` (and the request it happened in) at `level`, in the form the
 * logger understands (above).
 */
export function logError(
  logger: Logger,
  level: 'warn' | 'error',
  message: string,
  error: unknown,
  req?: RequestFacts,
): void {
  const line = req
    ? `${message} in ${req.method} ` +
      `${quote(req.path)}${req.id === undefined ? '' : ` (request ${quote(String(req.id))})`}`
    : message;
  const kind = kindOf(logger);
  if (kind === 'pino')
    (logger[level] as unknown as (details: object, message: string) => void)(
      { err: loggable(error, false), ...(req && { req }) },
      line,
    );
  else if (kind === 'winston') logger[level](line, { err: loggable(error, true), ...(req && { req }) });
  else logger[level](logLine(line, error));
}

type LoggerKind = 'pino' | 'winston' | 'lines';

/** Which logger this is, by its API; see the top of the file. */
function kindOf(logger: Logger): LoggerKind {
  const api = logger as unknown as Record<string, unknown>;
  if (typeof api['child'] !== 'function') return 'lines';
  const levels = api['levels'] as { values?: unknown } | undefined;
  if (typeof api['bindings'] === 'function' && typeof levels?.values === 'object') return 'pino';
  if (typeof api['log'] === 'function' && typeof api['add'] === 'function' && Array.isArray(api['transports']))
    return 'winston';
  return 'lines';
}

/** One line: the message, then the error's name, message and stack frames, if there is one. */
export function logLine(message: string, error?: unknown): string {
  return error === undefined ? message : `${message}: ${describeError(error)}`;
}

/** A string from a request (a path, an email), quoted and with control characters escaped. */
export function quote(value: string): string {
  return JSON.stringify(value).replace(
    /[\u007f-\u009f\u2028\u2029]/g,
    (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`,
  );
}

/**
 * An error as the log may show it: its message with control characters escaped (a driver may echo
 * a value it was given), and the frames of its stack. A database error's message is "<statement
 * with its values> - <driver message>", and the values can be password or token hashes: only the
 * driver's part is kept.
 */
export function describeError(error: unknown): string {
  if (!(error instanceof Error)) return escapeControls(String(error));
  const message = safeMessage(error);
  const cause =
    error.cause instanceof Error && !(error instanceof DriverException)
      ? `\n  caused by ${describeError(error.cause)}`
      : '';
  return [`${error.name}: ${escapeControls(message)}`, ...framesOf(error)].join('\n') + cause;
}

/**
 * The error a structured logger is given: the error itself when it carries nothing to hide, else
 * a copy of its class whose database errors (its own, or a cause's) keep only the driver's message,
 * the code and the frames. `enumerable` (for winston) copies every error, its name, message and
 * stack made enumerable. Anything thrown that is not an Error is given as its string.
 */
function loggable(error: unknown, enumerable: boolean, depth = 0): unknown {
  if (!(error instanceof Error)) return String(error);
  const message = safeMessage(error);
  if (message !== error.message) {
    const { code } = error as { code?: unknown };
    return copyOf(
      error,
      {
        name: error.name,
        message,
        stack: [`${error.name}: ${message}`, ...framesOf(error)].join('\n'),
        code: plain(code) ? code : undefined,
      },
      enumerable,
    );
  }
  // A chain of causes is followed 8 deep (an error may be its own cause); what lies deeper is left out.
  const cause = !(error.cause instanceof Error)
    ? error.cause
    : depth < 8
      ? loggable(error.cause, enumerable, depth + 1)
      : undefined;
  // Only plain values of its own (a code, a status): an object it carries may be an entity, a request, a configuration.
  const own = Object.entries(error).filter(([key]) => key !== 'cause');
  const kept = own.filter(([, value]) => plain(value));
  if (!enumerable && cause === error.cause && kept.length === own.length) return error;
  return copyOf(
    error,
    {
      ...Object.fromEntries(kept),
      name: error.name,
      message: error.message,
      stack: error.stack,
      ...(cause !== undefined && { cause }),
    },
    enumerable,
  );
}

function plain(value: unknown): boolean {
  return value === null || (typeof value !== 'object' && typeof value !== 'function');
}

/**
 * What the log may show of an error's message: a database error's without the statement and its
 * values; a MikroORM ValidationError's first line only (its "is required" message goes on with the
 * whole entity, `inspect`ed: a user's password hash with it). Any other message as it is.
 */
function safeMessage(error: Error): string {
  if (error instanceof DriverException) return driverMessage(error);
  if (error instanceof ValidationError) return error.message.split('\n')[0]!;
  return error.message;
}

/** An object of the error's class with exactly these properties, enumerable or (like an Error's own) not. */
function copyOf(error: Error, fields: Record<string, unknown>, enumerable: boolean): Error {
  const copy = Object.create(Object.getPrototypeOf(error) as object) as Error;
  for (const [key, value] of Object.entries(fields)) {
    if (value !== undefined)
      Object.defineProperty(copy, key, {
        value,
        enumerable: enumerable || !['name', 'message', 'stack', 'cause'].includes(key),
        writable: true,
        configurable: true,
      });
  }
  return copy;
}

/** A database error's message without the statement and its values: `(code) driver message`. */
function driverMessage(error: DriverException): string {
  return `(${String(error.code ?? 'no code')}) ${error.message.split(' - ').pop() ?? ''}`;
}

function framesOf(error: Error): string[] {
  return (error.stack ?? '').split('\n').filter((line) => /^\s+at /.test(line));
}

function escapeControls(text: string): string {
  return text.replace(
    /[\u0000-\u001f\u007f-\u009f\u2028\u2029]/g,
    (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`,
  );
}
