/**
 * Where a new password comes from: `--password` (visible to other users of the machine, so the
 * command warns), `--password-stdin` (one line), or, with neither, a prompt on the terminal that
 * asks twice without echo. Without a terminal there is nobody to prompt, and that is an error
 * rather than a hang on a pipe that never sends anything.
 */
import { createInterface } from 'node:readline';
import type { Readable, Writable } from 'node:stream';
import { ReadStream } from 'node:tty';
import { CliFailure } from './failures.js';
import { readHiddenLines } from './hidden-prompt.js';
import { exclusive } from './option-rules.js';

/** The two password options as the commands declare them. */
export interface PasswordOptions {
  password: string | undefined;
  passwordStdin: boolean;
}

/** The command's streams, so that an application embedding the commands can redirect them. */
export interface PasswordStreams {
  stdin: Readable;
  stderr: Writable;
}

/** `static schema` rule of the commands that take a new password. */
export const exclusivePasswordOptions = exclusive({ password: '--password', passwordStdin: '--password-stdin' });

/** The new password, from whichever source the options name; `whose` labels the prompt. */
export async function readNewPassword(
  options: PasswordOptions,
  streams: PasswordStreams,
  whose: string,
): Promise<string> {
  if (options.password !== undefined) {
    streams.stderr.write(
      'Warning: --password is visible to other users of this machine (process list, shell ' +
        'history); prefer --password-stdin or the prompt\n',
    );
    return options.password;
  }
  if (options.passwordStdin) return readFirstLine(streams.stdin);
  if (streams.stdin instanceof ReadStream && streams.stdin.isTTY) {
    const [first = '', second = ''] = await readHiddenLines(streams.stdin, streams.stderr, [
      `Password for ${whose}: `,
      'Repeat the password: ',
    ]);
    if (first !== second) throw new CliFailure('The two passwords differ; nothing was changed');
    return first;
  }
  throw new CliFailure(
    'No password given, and standard input is not a terminal to prompt on: use --password or --password-stdin',
  );
}

/** The first line of the stream, without its line ending; anything after it is left unread. */
async function readFirstLine(stdin: Readable): Promise<string> {
  const lines = createInterface({ input: stdin, crlfDelay: Infinity, terminal: false });
  try {
    for await (const line of lines) return line;
  } finally {
    lines.close();
  }
  throw new CliFailure('--password-stdin: standard input ended before a line with the password');
}
