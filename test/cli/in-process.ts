/**
 * The CLI run inside the test process: the same command line as the binary (cli/program.ts), with
 * stdin given, stdout and stderr collected and the exit status returned, in a few milliseconds
 * instead of a process start. What only a process shows (its exit status as the shell sees it, a
 * prompt on a terminal, output flushed before exit, `--app` modules loaded afresh) is tested with
 * cli-process.ts.
 *
 * A command reads its settings from process.env and the working directory, and some set
 * variables themselves (`--app`): each run gets the environment a real process would get
 * (cli-process.ts's `environment`) and `cwd`, and both are put back when it ends. Runs are
 * therefore one at a time, in the order they were asked for.
 */
import { Readable, Writable } from 'node:stream';
import { createCli, runCommandLine } from '../../cli/program.js';
import { environment, type CliOptions, type CliResult } from './cli-process.js';

let previous: Promise<unknown> = Promise.resolve();

/** Runs `service-auth <args>` in this process, after any run still under way. */
export function runCliInProcess(args: string[], options: Omit<CliOptions, 'runner'> = {}): Promise<CliResult> {
  const run = previous.then(() => runNow(args, options));
  previous = run.catch(() => undefined);
  return run;
}

async function runNow(args: string[], options: Omit<CliOptions, 'runner'>): Promise<CliResult> {
  const saved = { env: { ...process.env }, cwd: process.cwd() };
  replaceEnvironment(environment(options.env));
  if (options.cwd !== undefined) process.chdir(options.cwd);
  const stdout = new Collected();
  const stderr = new Collected();
  try {
    const stdin = Readable.from(options.input ? [Buffer.from(options.input)] : []);
    const code = await runCommandLine(createCli(false), args, {
      env: process.env,
      stdin,
      stdout,
      stderr,
      colorDepth: 1,
    });
    return { code, stdout: stdout.text, stderr: stderr.text };
  } finally {
    replaceEnvironment(saved.env);
    process.chdir(saved.cwd);
  }
}

/** Makes process.env exactly `env` (the object itself stays: Node gives it special behaviour). */
function replaceEnvironment(env: NodeJS.ProcessEnv): void {
  for (const key of Object.keys(process.env)) if (!(key in env)) delete process.env[key];
  Object.assign(process.env, env);
}

/** A stream that keeps what is written to it, as text. */
class Collected extends Writable {
  text = '';

  override _write(chunk: Buffer | string, _encoding: BufferEncoding, done: () => void): void {
    this.text += String(chunk);
    done();
  }
}
