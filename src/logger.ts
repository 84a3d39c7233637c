/**
 * Where the package writes its log lines, and how. Every line is handed to the logger as one
 * string, the error's message and stack included: `console`, pino and winston all keep a string
 * whole, whereas each treats extra arguments its own way (pino drops them without a format
 * placeholder, winston merges objects into its metadata). User input in a line is quoted with its
 * control characters escaped, so that nobody can write a line of their own into the log.
 */
import { DriverException } from '@mikro-orm/core';

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

/** One line: the message, then the error's name, message and stack frames, if there is one. */
export function logLine(message: string, error?: unknown): string {
  return error === undefined ? message : `${message}: ${describeError(error)}`;
}

/** A string from a request (a path, an email), quoted and with control characters escaped. */
export function quote(value: string): string {
  return JSON.stringify(value).replace(/[\u007f-\u009f\u2028\u2029]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
}

/**
 * An error as the log may show it: its message with control characters escaped (a driver may echo
 * a value it was given), and the frames of its stack. A database error's message is "<statement
 * with its values> - <driver message>", and the values can be password or token hashes: only the
 * driver's part is kept.
 */
export function describeError(error: unknown): string {
  if (!(error instanceof Error)) return escapeControls(String(error));
  const message = error instanceof DriverException ? `(${String(error.code ?? 'no code')}) ${error.message.split(' - ').pop() ?? ''}` : error.message;
  const frames = (error.stack ?? '').split('\n').filter((line) => /^\s+at /.test(line));
  const cause = error.cause instanceof Error && !(error instanceof DriverException) ? `\n  caused by ${describeError(error.cause)}` : '';
  return [`${error.name}: ${escapeControls(message)}`, ...frames].join('\n') + cause;
}

function escapeControls(text: string): string {
  return text.replace(/[\u0000-\u001f\u007f-\u009f\u2028\u2029]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
}
