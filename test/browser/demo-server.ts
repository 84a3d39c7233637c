/**
 * The demo application (`demo/app.ts`, as `npm start` builds it) served from this test process on
 * a port of its own, for a browser to use: its mail goes to an outbox the test reads, and its
 * public URL (the origin of the links it mails) is the address the browser visits. A process of
 * its own would show nothing more here (test/demo/demo.test.ts runs `npm start` itself), and cost
 * a second or two of CPU per suite to start.
 */
import { randomUUID } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createTestApp, outboxMails, type TestApp } from '../helpers/app.js';
import { importDemo, type DemoModule } from '../helpers/demo-app.js';

export interface DemoServer {
  url: string;
  /** Another ServiceAuth on the demo's database, as an operator's CLI would be: to add users. */
  operator: TestApp;
  /** The mails sent so far, once at least `count` have arrived. */
  mails(count?: number): Promise<{ to: string; subject: string; text: string }[]>;
  stop(): Promise<void>;
}

/**
 * Every suite's browser posts from the one address, and the default limits (3 registrations and
 * 10 logins a minute) are about what a suite already uses: one more test would meet a 429 page
 * rather than the page it checks. Rate limits stay on, only roomy; the refusal page for too many
 * attempts is tested with supertest (test/http/pages.test.ts).
 */
const ROOMY_RATE_LIMITS = {
  SERVICE_AUTH_RATE_LIMIT_REGISTER: '1000 per minute',
  SERVICE_AUTH_RATE_LIMIT_LOGIN: '1000 per minute',
  SERVICE_AUTH_RATE_LIMIT_LOGIN_FAILURES: '1000 per minute',
  SERVICE_AUTH_RATE_LIMIT_FORGOT_PASSWORD: '1000 per minute',
  SERVICE_AUTH_RATE_LIMIT_RESET_PASSWORD: '1000 per minute',
  SERVICE_AUTH_RATE_LIMIT_TOKEN_FAILURES: '1000 per minute',
};
/** Hashing at its test costs, as in every suite's app (test/helpers/app.ts). */
const FAST_HASHING = { SERVICE_AUTH_INSECURE_FAST_HASHING: 'true' };

/** `settings`: more of the demo's environment (SERVICE_AUTH_EMAIL_CONFIRMATION, say). */
export async function startDemoServer(settings: Record<string, string> = {}): Promise<DemoServer> {
  const dir = await mkdtemp(join(tmpdir(), 'service-auth-browser-'));
  const outbox = join(dir, 'outbox');
  const databaseUrl = `sqlite:${join(dir, 'service-auth.sqlite')}`;
  // Listening before the demo is built: its public URL must name the port.
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, resolve));
  const url = `http://localhost:${(server.address() as AddressInfo).port}`;
  let demo: DemoModule | undefined;
  let operator: TestApp | undefined;
  const stop = async () => {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
    await operator?.auth.close();
    await demo?.database.close();
    await demo?.auth.close();
    await rm(dir, { recursive: true, force: true });
  };
  try {
    demo = await importDemo(`browser-${randomUUID()}`, {
      SERVICE_AUTH_DATABASE_URL: databaseUrl,
      SERVICE_AUTH_PUBLIC_URL: url,
      SERVICE_AUTH_MAIL_OUTBOX: outbox,
      ...ROOMY_RATE_LIMITS,
      ...FAST_HASHING,
      ...settings,
    });
    // What the demo logs stays out of the test report, but for its errors.
    demo.auth.logger = {
      info: () => undefined,
      warn: () => undefined,
      error: (...args: unknown[]) => console.error(...args),
    };
    await demo.database.ready;
    server.on('request', demo.app);
    operator = await createTestApp({ SERVICE_AUTH_DATABASE_URL: databaseUrl });
    return { url, operator, mails: (count = 1) => outboxMails(outbox, count), stop };
  } catch (error) {
    await stop();
    throw error;
  }
}

/**
 * For a suite: the demo started before its tests and stopped after them. The handle reads the
 * running demo when a test uses it.
 */
export function useDemoServer(settings: Record<string, string> = {}): Omit<DemoServer, 'stop'> {
  let demo: DemoServer | undefined;
  before(async function () {
    demo = await startDemoServer(settings);
  });
  after(() => demo?.stop());
  const running = (): DemoServer => {
    if (!demo) throw new Error('the demo server has not started');
    return demo;
  };
  return {
    get url() {
      return running().url;
    },
    get operator() {
      return running().operator;
    },
    mails: (count) => running().mails(count),
  };
}
