/**
 * The demo application as `npm start` runs it, in its own process and scratch directory, for a
 * browser to use: its mail goes to an outbox the test reads, and its public URL (the origin of
 * the links it mails) is the address the browser visits.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createTestApp, outboxMails, type TestApp } from '../helpers/app.js';
import { freePort } from '../helpers/ports.js';
import { startDemo, type RunningDemo } from '../helpers/processes.js';

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
export async function startDemoServer(settings: NodeJS.ProcessEnv = {}): Promise<DemoServer> {
  const dir = await mkdtemp(join(tmpdir(), 'service-auth-browser-'));
  const outbox = join(dir, 'outbox');
  let demo: RunningDemo | undefined;
  let operator: TestApp | undefined;
  try {
    // The public URL must be known before the demo starts, so the port is chosen here.
    const port = await freePort();
    const url = `http://localhost:${port}`;
    demo = await startDemo(dir, { PORT: String(port), SERVICE_AUTH_PUBLIC_URL: url, SERVICE_AUTH_MAIL_OUTBOX: outbox, ...ROOMY_RATE_LIMITS, ...FAST_HASHING, ...settings });
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

/**
 * For a suite: the demo started before its tests and stopped after them. The handle reads the
 * running demo when a test uses it.
 */
export function useDemoServer(settings: NodeJS.ProcessEnv = {}): Omit<DemoServer, 'stop'> {
  let demo: DemoServer | undefined;
  before(async function () {
    this.timeout(60_000);
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
