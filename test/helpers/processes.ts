/** Real child processes for the demo and the CLI, with their output collected. */
import { spawn, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';

export const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const TSX = import.meta.resolve('tsx');

export interface RunningDemo {
  url: string;
  process: ChildProcess;
  output(): string;
  stop(): Promise<number | null>;
}

/** Starts `demo/server.ts` as `npm start` does, on a free port, in `cwd`. */
export async function startDemo(cwd: string, env: NodeJS.ProcessEnv = {}): Promise<RunningDemo> {
  // tsx is resolved from the package, not from cwd (a scratch directory).
  const child = spawn(process.execPath, ['--import', TSX, `${ROOT}/demo/server.ts`], {
    cwd,
    env: { ...process.env, PORT: '0', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout!.on('data', (chunk) => (output += chunk));
  child.stderr!.on('data', (chunk) => (output += chunk));
  const url = await new Promise<string>((resolve, reject) => {
    // A deadline, not a wait: a demo starts in about two seconds, far slower on a busy machine.
    const timer = setTimeout(() => reject(new Error(`demo did not start:\n${output}`)), 50_000);
    child.stdout!.on('data', () => {
      const match = /listening on (http:\/\/localhost:\d+)/.exec(output);
      if (match) {
        clearTimeout(timer);
        resolve(match[1]!);
      }
    });
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`demo exited with ${code}:\n${output}`));
    });
  });
  return {
    url,
    process: child,
    output: () => output,
    stop: () =>
      new Promise((resolve) => {
        if (child.exitCode !== null) return resolve(child.exitCode);
        child.once('exit', (code) => resolve(code));
        child.kill('SIGTERM');
      }),
  };
}
