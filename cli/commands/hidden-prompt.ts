/**
 * Reading passwords from a terminal without echoing them. The terminal is put in raw mode, so
 * nothing typed appears on screen (nor in a terminal recording) and the keys that would normally
 * be handled by the terminal (Enter, Backspace, Ctrl-C) are handled here.
 */
import type { ReadStream } from 'node:tty';
import type { Writable } from 'node:stream';
import { CliFailure, EXIT_CANCELLED } from './failures.js';

const ENTER = new Set(['\r', '\n']);
const BACKSPACE = new Set(['\u007f', '\b']);
const CTRL_C = '\u0003';
const CTRL_D = '\u0004';
const CTRL_U = '\u0015';
const ESCAPE = '\u001b';

/**
 * Shows each prompt (on `output`, normally stderr) and reads one hidden line for it. The lines are
 * read in one raw-mode session, so input typed or pasted ahead of the second prompt is kept.
 */
export function readHiddenLines(input: ReadStream, output: Writable, prompts: readonly string[]): Promise<string[]> {
  return new Promise((resolve, reject) => {
    const answers: string[] = [];
    let current = '';
    let previous = '';
    let inEscape = false;
    const wasRaw = input.isRaw;

    const finish = (error?: Error): void => {
      input.off('data', onData);
      input.setRawMode(wasRaw);
      input.pause();
      if (error) reject(error);
      else resolve(answers);
    };

    const onData = (chunk: string | Buffer): void => {
      for (const char of String(chunk)) {
        const last = previous;
        previous = char;
        if (inEscape) {
          // An arrow or function key: ESC [ … final byte. None of it belongs to the password.
          if (char !== '[' && char !== 'O' && char >= '@' && char <= '~') inEscape = false;
          continue;
        }
        if (ENTER.has(char)) {
          if (char === '\n' && last === '\r') continue; // a CR LF pair is one Enter
          output.write('\n');
          answers.push(current);
          current = '';
          if (answers.length === prompts.length) return finish();
          output.write(prompts[answers.length]!);
        } else if (char === CTRL_C || (char === CTRL_D && current === '')) {
          output.write('\n');
          return finish(new CliFailure('Cancelled; nothing was changed', EXIT_CANCELLED));
        } else if (BACKSPACE.has(char)) {
          current = [...current].slice(0, -1).join('');
        } else if (char === CTRL_U) {
          current = '';
        } else if (char === ESCAPE) {
          inEscape = true;
        } else if (char >= ' ') {
          current += char;
        }
      }
    };

    input.setEncoding('utf8');
    input.setRawMode(true);
    output.write(prompts[0] ?? '');
    input.on('data', onData);
    input.resume();
  });
}
