/**
 * The exit statuses, and the failure a command throws when its message is already what the
 * operator should read. What other errors become is in failure-report.ts, which needs MikroORM's
 * error classes: it is loaded only when a command fails, so that `--help` never loads them.
 */

/** Exit status of a command that ran and failed. */
export const EXIT_FAILURE = 1;
/** Exit status when the command line itself is wrong (unknown option, conflicting flags). */
export const EXIT_USAGE = 2;
/** Exit status when the operator cancelled a prompt (Ctrl-C), as a shell reports SIGINT. */
export const EXIT_CANCELLED = 130;

/** An expected failure whose message is already what the operator should read. */
export class CliFailure extends Error {
  override name = 'CliFailure';

  constructor(
    message: string,
    readonly exitCode: number = EXIT_FAILURE,
  ) {
    super(message);
  }
}
