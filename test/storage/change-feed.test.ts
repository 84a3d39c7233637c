/**
 * The change feed (CONTRACT-2 §16): rows read for credentials are held until their user changes,
 * and an instance learns of changes made elsewhere with one indexed query at most every 500 ms,
 * whatever the number of credentials it holds. Two apps on one database; statements counted.
 */
import { expect } from 'chai';
import request from 'supertest';
import { ApiToken, CredentialChange } from '../../src/storage/entities/index.js';
import { createTestApp, PASSWORD, temporaryDatabase, type TestApp } from '../helpers/app.js';
import { holdFeedClock, type FeedClock } from '../helpers/feed-clock.js';
import { onStatement } from '../helpers/orm.js';
import { createPostgresDatabase, describePostgres } from '../helpers/services.js';

function changeFeedSuite(database: () => Promise<{ url: string; drop: () => Promise<void> }>) {
  let a: TestApp;
  let b: TestApp;
  let drop: () => Promise<void>;
  let statementsOnB: string[];
  /** b's feed clock: the interval passes when the test says so. */
  let clock: FeedClock;

  const instance = (url: string) =>
    createTestApp({ SERVICE_AUTH_DATABASE_URL: url, SERVICE_AUTH_RATE_LIMIT_ENABLED: false }, (app, auth) => {
      app.get(
        '/whoami',
        auth.tokenRequired,
        (req, res) => void res.json({ email: req.user!.email, roles: [...req.user!.roles] }),
      );
    });
  const whoami = (t: TestApp, token: string) => request(t.app).get('/whoami').set('Authorization', `Bearer ${token}`);

  beforeEach(async () => {
    const made = await database();
    drop = made.drop;
    a = await instance(made.url);
    b = await instance(made.url);
    clock = holdFeedClock(b);
    statementsOnB = [];
    await onStatement(await b.parts.storage.em(), (sql) => void statementsOnB.push(sql));
  });

  afterEach(async () => {
    await a.auth.close();
    await b.auth.close();
    await drop();
  });

  async function tokens(count: number): Promise<string[]> {
    const made: string[] = [];
    for (let i = 0; i < count; i++) {
      const user = await a.auth.users.create({ email: `user${i}@example.com`, password: PASSWORD });
      made.push((await a.auth.tokens.create(user.id, { name: 'script' })).token);
    }
    return made;
  }

  it('reads nothing but the feed, once per interval, for tokens already held, however many', async () => {
    const held = await tokens(4);
    for (const token of held) await whoami(b, token).expect(200);
    clock.passInterval();
    statementsOnB.length = 0;
    for (let round = 0; round < 3; round++) for (const token of held) await whoami(b, token).expect(200);
    expect(statementsOnB, 'one read of the feed for 12 requests over 4 tokens').to.have.length(1);
    expect(statementsOnB[0]).to.match(/service_auth_changes/);
  });

  it('drops what a change elsewhere names, and nothing else: a revoked token is refused within the interval', async () => {
    const [revoked, kept] = await tokens(2);
    await whoami(b, revoked!).expect(200);
    await whoami(b, kept!).expect(200);
    await a.auth.tokens.revoke(revoked!.split('_')[1]!);
    clock.passInterval();
    statementsOnB.length = 0;
    await whoami(b, revoked!).expect(401);
    await whoami(b, kept!).expect(200);
    expect(
      statementsOnB.filter((sql) => /service_auth_api_tokens/.test(sql)),
      'only the revoked token is read again',
    ).to.have.length(1);
  });

  it('shows a role granted elsewhere within the interval', async () => {
    const [token] = await tokens(1);
    expect((await whoami(b, token!).expect(200)).body.roles).to.deep.equal([]);
    await a.auth.users.addRole('user0@example.com', 'editor');
    clock.passInterval();
    expect((await whoami(b, token!).expect(200)).body.roles).to.deep.equal(['editor']);
  });

  it('applies a change whose id was drawn before one already read, once it commits', async () => {
    const [token] = await tokens(1);
    await whoami(b, token!).expect(200);
    clock.passInterval();
    await whoami(b, token!).expect(200); // b has read the feed up to here
    // A gap: id n+1 stands for a change still in flight when b reads n+2.
    const em = (await a.parts.storage.em()).fork();
    const [newest] = await em.find(CredentialChange, {}, { orderBy: { id: 'desc' }, limit: 1 });
    const late = (newest?.id ?? 0) + 1;
    await em.insertMany(CredentialChange, [{ id: late + 1, userId: 999_999, at: new Date() }]);
    clock.passInterval();
    await whoami(b, token!).expect(200);
    // Now the late change commits: it revoked the token.
    await em.nativeUpdate(ApiToken, { publicId: token!.split('_')[1]! }, { revokedAt: new Date() });
    await em.insertMany(CredentialChange, [
      { id: late, userId: (await a.auth.users.get('user0@example.com')).id, at: new Date() },
    ]);
    clock.passInterval();
    await whoami(b, token!).expect(401);
  });

  it('applies a change still in flight when an instance started, once it commits', async () => {
    const [token] = await tokens(1);
    const em = (await a.parts.storage.em()).fork();
    const [newest] = await em.find(CredentialChange, {}, { orderBy: { id: 'desc' }, limit: 1 });
    const late = (newest?.id ?? 0) + 1;
    await em.insertMany(CredentialChange, [{ id: late + 1, userId: 999_999, at: new Date() }]);
    const c = await instance(b.parts.storage.databaseUrl);
    const clockOfC = holdFeedClock(c);
    try {
      await whoami(c, token!).expect(200); // c starts reading the feed, past the gap
      await em.nativeUpdate(ApiToken, { publicId: token!.split('_')[1]! }, { revokedAt: new Date() });
      await em.insertMany(CredentialChange, [
        { id: late, userId: (await a.auth.users.get('user0@example.com')).id, at: new Date() },
      ]);
      clockOfC.passInterval();
      await whoami(c, token!).expect(401);
    } finally {
      await c.auth.close();
    }
  });
}

describe('the change feed [SQLite]', () => {
  changeFeedSuite(async () => {
    const file = await temporaryDatabase();
    return { url: file.url, drop: file.remove };
  });
});

describePostgres('the change feed', () => {
  changeFeedSuite(createPostgresDatabase);
});
