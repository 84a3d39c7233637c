/**
 * Asking an operator to confirm something that cannot be undone by typing what it applies to (as
 * GitHub asks for a repository's name before deleting it): a reflexive "y" confirms nothing, and
 * typing the email catches the wrong one of two similar addresses. The answer is echoed, unlike a
 * password. Without a terminal there is nobody to ask: the caller fails instead of reading a pipe.
 */
import { createInterface } from 'node:readline';
import type { Readable, Writable } from 'node:stream';
import { ReadStream } from 'node:tty';
import { CliFailure, EXIT_CANCELLED } from './failures.js';

/** The command's streams, so that an application embedding the commands can redirect them. */
export interface PromptStreams {
  stdin: Readable;
  stderr: Writable;
}

/** Whether standard input is a terminal a person can answer on. */
export function canAsk(streams: PromptStreams): boolean {
  return streams.stdin instanceof ReadStream && streams.stdin.isTTY;
}

/**
 * Shows `question` on stderr (stdout stays the command's output) and resolves with the line typed.
 * Ctrl-C and Ctrl-D cancel with status 130, as the password prompt does.
 */
export function askLine(streams: PromptStreams, question: string): Promise<string> {
  return new Promise((resolve, reject) => {
    // terminal: readline edits the line itself (raw mode), so Ctrl-C arrives as an event here
    // rather than as a signal that would end the process before the parts are closed.
    const lines = createInterface({ input: streams.stdin, output: streams.stderr, terminal: true });
    let answered = false;
    lines.on('SIGINT', () => lines.close());
    lines.once('close', () => {
      if (answered) return;
      streams.stderr.write('\n');
      reject(new CliFailure('Cancelled; nothing was changed', EXIT_CANCELLED));
    });
    lines.question(question, (line) => {
      answered = true;
      lines.close();
      resolve(line);
    });
  });
}
