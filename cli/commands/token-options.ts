import { ValidationError } from '../../src/errors.js';
import { CliFailure } from './failures.js';

/** The token fields as the options an operator typed. */
const OPTION_OF_FIELD: Record<string, string> = {
  name: '--name',
  expiresInDays: '--expires-in-days',
  scopes: '--scope',
  org: '--org',
  sha256: '--sha256',
};

/** Runs `work`, reporting invalid token fields by the command-line options that carried them. */
export async function tokenFieldsAsOptions<T>(work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (error) {
    if (!(error instanceof ValidationError)) throw error;
    throw new CliFailure(
      error.fieldErrors.map((e) => `Invalid ${OPTION_OF_FIELD[e.field] ?? e.field}: ${e.message}`).join('\n'),
    );
  }
}
