/**
 * The package's own log lines during a command: on stderr, so that stdout carries only the
 * command's output (a table, JSON, a token), and only once `ready` has settled, because a failed
 * start is reported by the command itself and would otherwise be said twice.
 */
import type { Writable } from 'node:stream';
import { formatWithOptions } from 'node:util';
import type { Logger } from '../../src/logger.js';

export function cliLogger(stderr: Writable, ready: Promise<unknown>): Logger {
  let started = false;
  ready.then(
    () => (started = true),
    () => (started = true),
  );
  const write =
    (level: string) =>
    (message: string, ...details: unknown[]): void => {
      if (!started) return;
      // '%s': the message is text, never a format string (it may quote an email with a '%' in it).
      stderr.write(`[service-auth] ${level}${formatWithOptions({ colors: false }, '%s', message, ...details)}\n`);
    };
  return { info: write(''), warn: write('warning: '), error: write('error: ') };
}
