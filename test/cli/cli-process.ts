/**
 * The CLI as an operator runs it: a real process of the built binary (`node dist/cli/index.js`),
 * or of the sources under tsx, or inside a real pseudo-terminal, with stdout, stderr and the exit
 * status collected.
 */
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { ROOT } from '../helpers/processes.js';

export const BUILT_CLI = join(ROOT, 'dist/cli/index.js');
const SOURCE_CLI = join(ROOT, 'cli/index.ts');
const TSX = import.meta.resolve('tsx');

export interface CliResult {
  code: number | null;
  stdout: string;
  stderr: string;
}

export interface CliOptions {
  /** Written to stdin, which is then closed (it is closed at once without this). */
  input?: string;
  /** Added to the environment (a variable set to undefined is removed). */
  env?: Record<string, string | undefined>;
  cwd?: string;
  /**
   * `built` (default) runs `node dist/cli/index.js <args>`; `tsx` runs cli/index.ts under tsx;
   * `node` runs `node <args>`.
   */
  runner?: 'built' | 'tsx' | 'node';
}

/** Runs `service-auth <args>` to completion. */
export function runCli(args: string[], options: CliOptions = {}): Promise<CliResult> {
  const child = spawn(process.execPath, [...runnerArgs(options.runner), ...args], {
    cwd: options.cwd ?? ROOT,
    env: environment(options.env),
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
  child.stdin.end(options.input ?? '');
  return new Promise((resolve, reject) => {
    child.once('error', reject);
    child.once('close', (code) => resolve({ code, stdout, stderr: withoutExperimentalWarnings(stderr) }));
  });
}

/**
 * Node's notices, not ours: Node 24 warns, the first time @simplewebauthn/server asks Web Crypto
 * what it supports, that the question and the ML-DSA algorithms are experimental (docs/mfa.md);
 * Node 22, the first time node:sqlite opens a database (MikroORM 7), that it is experimental
 * (docs/configuration.md#the-database).
 */
export function withoutExperimentalWarnings(stderr: string): string {
  return stderr
    .replace(
      /^\(node:\d+\) ExperimentalWarning: [^\n]*(Web Crypto API|SQLite is an experimental feature)[^\n]*\n/gm,
      '',
    )
    .replace(/^\(Use `node --trace-warnings \.\.\.` to show where the warning was created\)\n/m, '');
}

/** One CLI invocation, started when called. */
export type CliRun = () => Promise<CliResult>;

/**
 * Runs a batch of invocations and returns their results by name. The `writers` of one SQLite file
 * run one after another, because SQLite answers a transaction that read before writing with
 * SQLITE_BUSY at once (not after its busy timeout) when another process wrote in between; the
 * `others` (reads, and failures that stop before writing) run alongside them, all at once.
 */
export async function runBatch(batch: {
  writers?: Record<string, CliRun>;
  others?: Record<string, CliRun>;
}): Promise<Record<string, CliResult>> {
  const results: Record<string, CliResult> = {};
  const inTurn = async (): Promise<void> => {
    for (const [name, run] of Object.entries(batch.writers ?? {})) results[name] = await run();
  };
  const atOnce = Object.entries(batch.others ?? {}).map(async ([name, run]) => {
    results[name] = await run();
  });
  await Promise.all([inTurn(), ...atOnce]);
  return results;
}

export interface TerminalResult {
  code: number | null;
  /** Everything the terminal showed (stdout and stderr together), with `\n` line ends. */
  output: string;
}

/**
 * Runs the built CLI inside a real pseudo-terminal (util-linux `script`), so that its stdin is a
 * TTY. Each answer is typed once the output ends with its prompt, as a person would.
 */
export function runCliInTerminal(
  args: string[],
  answers: { prompt: RegExp; type: string }[],
  options: CliOptions = {},
): Promise<TerminalResult> {
  const command = [process.execPath, ...runnerArgs(options.runner), ...args].map(shellQuote).join(' ');
  const child = spawn('script', ['--quiet', '--return', '--command', command, '/dev/null'], {
    cwd: options.cwd ?? ROOT,
    env: environment(options.env),
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  let output = '';
  let answered = 0;
  const pending = [...answers];
  child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
    output += chunk;
    const next = pending[0];
    if (next && next.prompt.test(output.slice(answered))) {
      pending.shift();
      answered = output.length;
      child.stdin.write(next.type);
    }
  });
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => (output += chunk));
  return new Promise((resolve, reject) => {
    child.once('error', reject);
    child.once('close', (code) =>
      resolve({ code, output: withoutExperimentalWarnings(output.replace(/\r\n/g, '\n')) }),
    );
  });
}

/** Fails with a clear message when the binary has not been built (`npm test` builds it first). */
export function assertBuilt(): void {
  if (!existsSync(BUILT_CLI)) {
    throw new Error(`${BUILT_CLI} is missing: build it with \`npm run build\` (npm test's pretest does)`);
  }
}

function runnerArgs(runner: CliOptions['runner'] = 'built'): string[] {
  if (runner === 'tsx') return ['--import', TSX, SOURCE_CLI];
  if (runner === 'node') return [];
  assertBuilt();
  return [BUILT_CLI];
}

/** The parent's environment without its SERVICE_AUTH_ settings (a developer's shell may have some). */
export function environment(extra: Record<string, string | undefined> = {}): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [key, value] of Object.entries(process.env)) {
    if (!key.startsWith('SERVICE_AUTH_') || key.startsWith('SERVICE_AUTH_TEST_')) env[key] = value;
  }
  for (const [key, value] of Object.entries(extra)) {
    if (value === undefined) delete env[key];
    else env[key] = value;
  }
  return env;
}

function shellQuote(word: string): string {
  return `'${word.replace(/'/g, `'\\''`)}'`;
}
