/**
 * The demo application as `npm start` runs it, in its own process and scratch directory, for a
 * browser to use: its mail goes to an outbox the test reads, and its public URL (the origin of
 * the links it mails) is the address the browser visits.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createTestApp, outboxMails, type TestApp } from '../helpers/app.js';
import { startDemo, type RunningDemo } from '../helpers/processes.js';

export interface DemoServer {
  url: string;
  /** Another ServiceAuth on the demo's database, as an operator's CLI would be: to add users. */
  operator: TestApp;
  /** The mails sent so far, once at least `count` have arrived. */
  mails(count?: number): Promise<{ to: string; subject: string; text: string }[]>;
  stop(): Promise<void>;
}

export async function startDemoServer(): Promise<DemoServer> {
  const dir = await mkdtemp(join(tmpdir(), 'service-auth-browser-'));
  const outbox = join(dir, 'outbox');
  let demo: RunningDemo | undefined;
  let operator: TestApp | undefined;
  try {
    // The public URL must be known before the demo starts, so the port is chosen here.
    const port = await freePort();
    const url = `http://localhost:${port}`;
    demo = await startDemo(dir, { PORT: String(port), SERVICE_AUTH_PUBLIC_URL: url, SERVICE_AUTH_MAIL_OUTBOX: outbox });
    operator = await createTestApp({ SERVICE_AUTH_DATABASE_URL: `sqlite:${join(dir, 'service-auth.sqlite')}` });
    const running = { demo, operator };
    return {
      url,
      operator,
      mails: (count = 1) => outboxMails(outbox, count),
      async stop() {
        await running.operator.auth.close();
        await running.demo.stop();
        await rm(dir, { recursive: true, force: true });
      },
    };
  } catch (error) {
    await operator?.auth.close();
    await demo?.stop();
    await rm(dir, { recursive: true, force: true });
    throw error;
  }
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}
