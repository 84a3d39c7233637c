/**
 * Every password change ends the user's sessions, whichever way it comes: `auth.users.setPassword`,
 * `auth.resetPassword`, or the CLI's `auth reset-password` on the file a running app uses.
 */
import { expect } from 'chai';
import request from 'supertest';
import type { AuthUser } from '../../src/index.js';
import { runCli } from '../cli/cli-process.js';
import {
  createAppWithOutbox,
  createTestApp,
  outboxMails,
  PASSWORD,
  resetTokenFrom,
  sessionCookieFrom,
  temporaryDatabase,
  type AppWithOutbox,
  type TestApp,
} from '../helpers/app.js';

const NEW_PASSWORD = 'Brand-New-Password-42';
/** How soon another process's change must reach a running app (README: "within a second"). */
const PROPAGATION_MS = 1000;

type Change = (t: TestApp, email: string, password: string) => Promise<AuthUser>;

const CHANGES: Record<string, Change> = {
  'auth.users.setPassword': (t, email, password) => t.auth.users.setPassword(email, password),
  'auth.resetPassword': (t, email, password) => t.auth.resetPassword(email, password),
};

async function login(t: TestApp, email: string): Promise<string> {
  const response = await request(t.app).post('/service-auth/login').send({ email, password: PASSWORD }).expect(200);
  return sessionCookieFrom(response)!;
}

const withCookie = (t: TestApp, cookie: string) => request(t.app).get('/service-auth/me').set('Cookie', cookie);
const withToken = (t: TestApp, token: string) =>
  request(t.app).get('/service-auth/me').set('Authorization', `Bearer ${token}`);

/** Asks until the answer has this status, failing if it still has not `withinMs` after the first ask. */
async function untilStatus(probe: () => Promise<{ status: number }>, status: number, withinMs: number): Promise<void> {
  const deadline = Date.now() + withinMs;
  for (;;) {
    const { status: actual } = await probe();
    if (actual === status) return;
    if (Date.now() > deadline) expect.fail(`still ${actual} after ${withinMs} ms; expected ${status}`);
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}

for (const [way, change] of Object.entries(CHANGES)) {
  describe(`password changes through ${way}`, () => {
    let t: AppWithOutbox;

    beforeEach(async () => {
      t = await createAppWithOutbox();
      await t.auth.users.create({ email: 'ada@example.com', password: PASSWORD });
      await t.auth.users.create({ email: 'bob@example.com', password: PASSWORD });
    });
    afterEach(() => t.close());

    it('ends every session of the user at once', async () => {
      const [first, second] = [await login(t, 'ada@example.com'), await login(t, 'ada@example.com')];
      await withCookie(t, first).expect(200);
      await withCookie(t, second).expect(200);
      await change(t, 'ada@example.com', NEW_PASSWORD);
      expect((await withCookie(t, first).expect(401)).body.code).to.equal('unauthenticated');
      await withCookie(t, second).expect(401);
      await request(t.app)
        .post('/service-auth/login')
        .send({ email: 'ada@example.com', password: NEW_PASSWORD })
        .expect(200);
    });

    it("leaves other users' sessions alone", async () => {
      const ada = await login(t, 'ada@example.com');
      const bob = await login(t, 'bob@example.com');
      await change(t, 'ada@example.com', NEW_PASSWORD);
      await withCookie(t, ada).expect(401);
      expect((await withCookie(t, bob).expect(200)).body.user.email).to.equal('bob@example.com');
    });

    it("revokes the user's API tokens at once, and no one else's", async () => {
      const ada = (await t.auth.tokens.create('ada@example.com', { name: 'ci' })).token;
      const bob = (await t.auth.tokens.create('bob@example.com', { name: 'ci' })).token;
      await withToken(t, ada).expect(200);
      await withToken(t, bob).expect(200);
      await change(t, 'ada@example.com', NEW_PASSWORD);
      expect((await withToken(t, ada).expect(401)).body.code).to.equal('invalid_token');
      await withToken(t, bob).expect(200);
    });

    it('makes a reset link mailed before the change useless', async () => {
      await request(t.app).post('/service-auth/forgot').send({ email: 'ada@example.com' }).expect(202);
      const token = resetTokenFrom((await outboxMails(t.outbox))[0]!);
      await change(t, 'ada@example.com', NEW_PASSWORD);
      const refused = await request(t.app)
        .post('/service-auth/reset')
        .send({ token, password: 'Attacker-Chosen-Password-1' })
        .expect(400);
      expect(refused.body.code).to.equal('invalid_reset_token');
      await request(t.app)
        .post('/service-auth/login')
        .send({ email: 'ada@example.com', password: NEW_PASSWORD })
        .expect(200);
    });
  });

  describe(`password changes through ${way} with SERVICE_AUTH_REVOKE_TOKENS_ON_PASSWORD_RESET false`, () => {
    let t: TestApp;

    beforeEach(async () => {
      t = await createTestApp({
        SERVICE_AUTH_RATE_LIMIT_ENABLED: false,
        SERVICE_AUTH_REVOKE_TOKENS_ON_PASSWORD_RESET: false,
      });
      await t.auth.users.create({ email: 'ada@example.com', password: PASSWORD });
    });
    afterEach(() => t.auth.close());

    it("keeps the user's API tokens, and still ends the sessions", async () => {
      const token = (await t.auth.tokens.create('ada@example.com', { name: 'ci' })).token;
      const cookie = await login(t, 'ada@example.com');
      await withToken(t, token).expect(200);
      await change(t, 'ada@example.com', NEW_PASSWORD);
      expect((await withToken(t, token).expect(200)).body.user.email).to.equal('ada@example.com');
      await withCookie(t, cookie).expect(401);
    });
  });
}

describe('auth.resetPassword', () => {
  let t: TestApp;

  beforeEach(async () => {
    t = await createTestApp({ SERVICE_AUTH_RATE_LIMIT_ENABLED: false });
    await t.auth.users.create({ email: 'ada@example.com', password: PASSWORD });
  });
  afterEach(() => t.auth.close());

  it('fires password_reset_completed with the user, once the sessions are ended', async () => {
    const cookie = await login(t, 'ada@example.com');
    const seen: { email: string; sessionStatus: number }[] = [];
    t.auth.on('password_reset_completed', async (user) => {
      seen.push({ email: user.email, sessionStatus: (await withCookie(t, cookie)).status });
    });
    const user = await t.auth.resetPassword('ada@example.com', NEW_PASSWORD);
    expect(user.email).to.equal('ada@example.com');
    expect(seen).to.deep.equal([{ email: 'ada@example.com', sessionStatus: 401 }]);
  });
});

describe('CLI: auth reset-password on the SQLite file a running app uses', () => {
  let database: Awaited<ReturnType<typeof temporaryDatabase>>;
  let t: TestApp;

  before(async () => {
    database = await temporaryDatabase();
    t = await createTestApp({ SERVICE_AUTH_DATABASE_URL: database.url, SERVICE_AUTH_RATE_LIMIT_ENABLED: false });
    await t.auth.users.create({ email: 'ada@example.com', password: PASSWORD });
    await t.auth.users.create({ email: 'bob@example.com', password: PASSWORD });
  });
  after(async () => {
    await t.auth.close();
    await database.remove();
  });

  it("ends the app's sessions and tokens of that user within a second, and no one else's", async () => {
    const [first, second, bob] = [
      await login(t, 'ada@example.com'),
      await login(t, 'ada@example.com'),
      await login(t, 'bob@example.com'),
    ];
    const token = (await t.auth.tokens.create('ada@example.com', { name: 'ci' })).token;
    // In use, so that the app holds them in memory when the CLI changes the file under it.
    for (const cookie of [first, second, bob]) await withCookie(t, cookie).expect(200);
    await withToken(t, token).expect(200);

    const result = await runCli(
      ['auth', 'reset-password', 'ada@example.com', '--password-stdin', '--database', database.url],
      {
        input: `${NEW_PASSWORD}\n`,
      },
    );
    expect(result.code, result.stderr).to.equal(0);

    await Promise.all([
      untilStatus(() => withCookie(t, first), 401, PROPAGATION_MS),
      untilStatus(() => withCookie(t, second), 401, PROPAGATION_MS),
      untilStatus(() => withToken(t, token), 401, PROPAGATION_MS),
    ]);
    await withCookie(t, bob).expect(200);
    await request(t.app)
      .post('/service-auth/login')
      .send({ email: 'ada@example.com', password: NEW_PASSWORD })
      .expect(200);
  });
});
