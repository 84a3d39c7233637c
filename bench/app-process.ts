/**
 * The benchmarked application (bench/server.ts) as a child process: started on a given database,
 * answering commands over IPC, stopped cleanly (a clean exit is what lets `--cpu-prof` write its
 * profile). The load generator stays in the parent so that it never shares the server's event loop.
 */
import { fork, type ChildProcess } from 'node:child_process';

export interface Ready {
  port: number;
  cookie: string;
  userId: number;
  passportToken: string;
  /** A note of the bench user's (bench/notes.ts), and the filter accessibleBy gives for their notes. */
  noteId: number;
  accessibleBy: string;
  /** A task of the bench user's projects (bench/tasks.ts), and the filter accessibleBy gives for their tasks. */
  taskId: number;
  accessibleTasks: string;
}

export interface AppProcessOptions {
  /** A SQLite (`sqlite:<file>`) or PostgreSQL URL. */
  databaseUrl: string;
  /** Extra Node options for the child, e.g. `--cpu-prof`. */
  nodeOptions?: string[];
  /** The application to run, beside this file; default `server.ts`. */
  script?: string;
  /** Extra configuration for the child's ServiceAuth, e.g. SERVICE_AUTH_REDIS_URL and SERVICE_AUTH_SECRET. */
  env?: Record<string, string>;
}

export class AppProcess {
  private next = 1;
  private readonly waiting = new Map<number, (result: unknown) => void>();

  private constructor(
    private readonly child: ChildProcess,
    readonly ready: Ready,
  ) {
    child.on('message', (message: { id?: number; result?: unknown }) => {
      if (message.id === undefined) return;
      this.waiting.get(message.id)?.(message.result);
      this.waiting.delete(message.id);
    });
  }

  static async start({
    databaseUrl,
    nodeOptions = [],
    script = 'server.ts',
    env = {},
  }: AppProcessOptions): Promise<AppProcess> {
    const child = fork(new URL(`./${script}`, import.meta.url).pathname, [], {
      execArgv: [...nodeOptions, '--import', 'tsx'],
      env: {
        ...process.env,
        BENCH_DATABASE_URL: databaseUrl,
        NODE_ENV: 'production',
        SERVICE_AUTH_PUBLIC_URL: 'http://127.0.0.1',
        ...env,
      },
      stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
    });
    const ready = await new Promise<Ready>((resolve, reject) => {
      child.once('message', (message: Ready & { ready?: boolean }) =>
        message.ready ? resolve(message) : reject(new Error('bench server failed to start')),
      );
      child.once('exit', (code) => reject(new Error(`bench server exited with ${code}`)));
    });
    return new AppProcess(child, ready);
  }

  get base(): string {
    return `http://127.0.0.1:${this.ready.port}`;
  }

  call<T>(command: Record<string, unknown>): Promise<T> {
    const id = this.next++;
    return new Promise((resolve) => {
      this.waiting.set(id, resolve as (result: unknown) => void);
      this.child.send({ id, ...command });
    });
  }

  /** Asks the server to close and exit, and waits for the exit (a kill after 10 s if it hangs). */
  async stop(): Promise<void> {
    if (this.child.exitCode !== null) return;
    const exited = new Promise<void>((resolve) => this.child.once('exit', () => resolve()));
    const hung = setTimeout(() => this.child.kill(), 10_000);
    this.child.send({ id: 0, cmd: 'stop' });
    await exited;
    clearTimeout(hung);
  }
}
