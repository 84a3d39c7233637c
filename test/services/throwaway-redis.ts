/**
 * A private `redis-server` on a port of its own, for tests that stop Redis mid-test: the machine's
 * shared Redis is never stopped. Nothing is kept on disk, so a restart starts empty, as a
 * replacement Redis node would.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { Redis } from 'ioredis';
import { freePort } from '../helpers/ports.js';

export interface ThrowawayRedis {
  url: string;
  /** Kills the server at once (SIGKILL: an outage, not a shutdown). */
  kill(): Promise<void>;
  /** Starts it again on the same port. */
  restart(): Promise<void>;
  /** Freezes the server (SIGSTOP): connections stay open, nothing is answered. */
  pause(): void;
  resume(): void;
}

export async function startThrowawayRedis(): Promise<ThrowawayRedis> {
  const port = await freePort();
  const url = `redis://127.0.0.1:${port}`;
  let server = await launch(port, url);
  return {
    url,
    async kill() {
      if (server.exitCode !== null || server.signalCode !== null) return;
      const exited = new Promise((resolve) => server.once('exit', resolve));
      server.kill('SIGKILL');
      await exited;
    },
    async restart() {
      server = await launch(port, url);
    },
    pause: () => void server.kill('SIGSTOP'),
    resume: () => void server.kill('SIGCONT'),
  };
}

async function launch(port: number, url: string): Promise<ChildProcess> {
  const server = spawn(
    'redis-server',
    ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'],
    { stdio: 'ignore' },
  );
  await new Promise<void>((resolve, reject) => {
    server.once('spawn', resolve);
    server.once('error', (error) =>
      reject(new Error(`cannot start redis-server (is it installed?): ${error.message}`)),
    );
  });
  // Up once it answers PING.
  for (let attempt = 0; ; attempt++) {
    const client = new Redis(url, { lazyConnect: true, maxRetriesPerRequest: 0, retryStrategy: () => null });
    client.on('error', () => undefined);
    try {
      await client.connect();
      await client.ping();
      return server;
    } catch (error) {
      if (attempt > 100) throw error;
      await new Promise((resolve) => setTimeout(resolve, 50));
    } finally {
      client.disconnect();
    }
  }
}
