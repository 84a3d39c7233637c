/**
 * What an operator reads when a command fails: one plain sentence per problem on stderr, never a
 * stack trace for a failure we expected, never a password (database URLs arrive redacted), and
 * the exit status that goes with it.
 */
import { DriverException, TableNotFoundException } from '@mikro-orm/core';
import { ConfigError } from '../../src/config/error.js';
import { redactUrl } from '../../src/config/redact.js';
import { AuthError, PasswordRulesError, ValidationError } from '../../src/errors.js';
import { StorageError } from '../../src/storage/orm.js';
import { CliFailure, EXIT_FAILURE } from './failures.js';

export interface FailureReport {
  message: string;
  exitCode: number;
}

/** The text (without trailing newline) and exit status for anything a command threw. */
export function reportFailure(error: unknown): FailureReport {
  if (error instanceof CliFailure) return { message: error.message, exitCode: error.exitCode };
  if (error instanceof AuthError) return { message: authErrorMessage(error), exitCode: EXIT_FAILURE };
  if (error instanceof ConfigError) return { message: `Configuration error: ${error.message}`, exitCode: EXIT_FAILURE };
  // `auth.ready`'s rejection: its message already names the URL with the password hidden.
  if (error instanceof StorageError)
    return { message: `Database unavailable: ${error.message}`, exitCode: EXIT_FAILURE };
  if (error instanceof TableNotFoundException) {
    return {
      message:
        'The database has no service-auth tables yet (SERVICE_AUTH_AUTO_MIGRATE is false): run the `auth migrate` command first',
      exitCode: EXIT_FAILURE,
    };
  }
  if (error instanceof DriverException) return { message: driverMessage(error), exitCode: EXIT_FAILURE };
  // Unexpected: the first line of the message, with anything like a URL's password hidden; the
  // stack would say nothing an operator can act on.
  const message = error instanceof Error ? error.message : String(error);
  return { message: `Unexpected error: ${redactUrl(message).split('\n')[0]}`, exitCode: EXIT_FAILURE };
}

/**
 * A database error without the statement: MikroORM's message is "<SQL with its parameter values> -
 * <driver message>", and the values include password hashes.
 */
function driverMessage(error: DriverException): string {
  if (error.code === 'SQLITE_BUSY') {
    return 'The SQLite database is busy: another process was writing to it. Nothing was changed; run the command again';
  }
  const driverSays = error.message.split(' - ').pop() ?? '';
  return `Database error: ${redactUrl(driverSays).split('\n')[0]}`;
}

/** Each stable code as a plain sentence; every failed rule or field on its own line. */
function authErrorMessage(error: AuthError): string {
  if (error instanceof PasswordRulesError) {
    return ['The password does not meet the rules:', ...error.failures.map((f) => `  - ${f.message} (${f.rule})`)].join(
      '\n',
    );
  }
  if (error instanceof ValidationError) {
    return error.fieldErrors
      .map((e) => `Invalid ${e.field === 'role' ? 'role name' : e.field}: ${e.message}`)
      .join('\n');
  }
  switch (error.code) {
    case 'invalid_email':
      return `Invalid email: ${error.message}`;
    case 'email_taken':
      return `Email taken: ${error.message}`;
    case 'role_in_use':
      return `Role in use: ${error.message} (with --force)`;
    case 'not_found':
      return `Not found: ${error.message}`;
    case 'unavailable':
      return `Database unavailable: ${error.message}`;
    default:
      return `${error.title}: ${error.message}`;
  }
}
