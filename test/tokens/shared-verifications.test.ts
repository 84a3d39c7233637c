/**
 * With SERVICE_AUTH_REDIS_URL and SERVICE_AUTH_SECRET, instances share which tokens verified, so a
 * token costs one PBKDF2 derivation per deployment, not per process (CONTRACT-2 §16). Two apps on
 * one database file and the test Redis; derivations counted, never timed.
 */
import { expect } from 'chai';
import { Redis } from 'ioredis';
import request from 'supertest';
import { sha256Hex } from '../../src/secrets.js';
import { ApiToken } from '../../src/storage/entities/index.js';
import { createTestApp, openDatabase, PASSWORD, temporaryDatabase, type TestApp } from '../helpers/app.js';
import { holdFeedClock } from '../helpers/feed-clock.js';
import { clearRateLimits, describeRedis, redisPrefix, redisSettings, redisUrl } from '../helpers/services.js';

const SECRET = 'a-test-secret-of-forty-characters-------';
const OTHER_SECRET = 'another-secret-of-forty-characters------';

describeRedis('tokens verified once per deployment', () => {
  let database: Awaited<ReturnType<typeof temporaryDatabase>>;
  let redis: Redis;
  const apps: TestApp[] = [];

  async function instance(settings: Record<string, unknown> = {}): Promise<TestApp> {
    const made = await createTestApp(
      { SERVICE_AUTH_DATABASE_URL: database.url, ...redisSettings(), SERVICE_AUTH_SECRET: SECRET, ...settings },
      (app, auth) => {
        app.get('/whoami', auth.tokenRequired, (req, res) => void res.json({ email: req.user!.email }));
      },
    );
    apps.push(made);
    return made;
  }

  async function derivationsDuring(t: TestApp, work: () => Promise<unknown>): Promise<number> {
    const before = t.parts.derivations.derivations;
    await work();
    return t.parts.derivations.derivations - before;
  }

  const whoami = (t: TestApp, token: string) => request(t.app).get('/whoami').set('Authorization', `Bearer ${token}`);

  async function tokenOf(t: TestApp): Promise<{ id: string; token: string }> {
    const user = await t.auth.users.create({
      email: `user${apps.length}-${Date.now()}@example.com`,
      password: PASSWORD,
    });
    return t.auth.tokens.create(user.id, { name: 'script', expiresInDays: 30 });
  }

  const verifiedKeys = () => redis.keys(`${redisPrefix}service-auth:verified:*`);

  before(() => {
    redis = new Redis(redisUrl!, { maxRetriesPerRequest: 1 });
  });
  beforeEach(async () => {
    database = await temporaryDatabase();
    await clearRateLimits(redisUrl!);
  });
  afterEach(async () => {
    for (const app of apps.splice(0)) await app.auth.close();
    await database.remove();
    await clearRateLimits(redisUrl!);
  });
  after(() => redis.disconnect());

  it('answers a token verified on one instance on another without a derivation', async () => {
    const a = await instance();
    const b = await instance();
    const { token } = await tokenOf(a);
    expect(await derivationsDuring(a, () => whoami(a, token).expect(200))).to.equal(1);
    expect(await derivationsDuring(b, () => whoami(b, token).expect(200))).to.equal(0);
  });

  it('derives on each instance without a secret (nothing is shared), and with different secrets', async () => {
    const a = await instance({ SERVICE_AUTH_SECRET: undefined });
    const b = await instance({ SERVICE_AUTH_SECRET: undefined });
    const { token } = await tokenOf(a);
    await whoami(a, token).expect(200);
    expect(await derivationsDuring(b, () => whoami(b, token).expect(200))).to.equal(1);
    expect(await verifiedKeys()).to.deep.equal([]);

    const c = await instance({ SERVICE_AUTH_SECRET: SECRET });
    const d = await instance({ SERVICE_AUTH_SECRET: OTHER_SECRET });
    await whoami(c, token).expect(200);
    expect(await derivationsDuring(d, () => whoami(d, token).expect(200)), 'a key made with another secret').to.equal(
      1,
    );
  });

  it('keeps in Redis only an HMAC of the token and its public id, for no longer than the token lives', async () => {
    const a = await instance();
    const { id, token } = await tokenOf(a);
    // The token now expires in ten minutes.
    const orm = await openDatabase(database.url);
    try {
      await orm.em.fork().nativeUpdate(ApiToken, { publicId: id }, { expiresAt: new Date(Date.now() + 600_000) });
    } finally {
      await orm.close();
    }
    await whoami(a, token).expect(200);
    // The write is not awaited by the request: wait for it, up to a deadline.
    let keys = await verifiedKeys();
    for (const deadline = Date.now() + 5000; keys.length === 0 && Date.now() < deadline; keys = await verifiedKeys())
      await new Promise((resolve) => setTimeout(resolve, 5));
    expect(keys).to.have.length(1);
    const key = keys[0]!;
    expect(key.slice(redisPrefix.length)).to.match(/^service-auth:verified:[0-9a-f]{64}$/);
    expect(key.endsWith(sha256Hex(token)), 'not the SHA-256 a guess could be checked against').to.equal(false);
    const stored = [key, (await redis.get(key))!];
    expect(stored[1]).to.equal(id);
    expect(stored.join(' ')).to.not.include(token.slice(token.indexOf(id) + id.length, -6)); // the secret part
    expect(await redis.ttl(key)).to.be.within(1, 600);
  });

  it('still refuses a revoked token on another instance, without a derivation', async () => {
    const a = await instance();
    const b = await instance();
    const { id, token } = await tokenOf(a);
    const clock = holdFeedClock(b);
    await whoami(a, token).expect(200);
    await a.auth.tokens.revoke(id);
    clock.passInterval(); // b must read the change feed before it uses what it holds
    expect(await derivationsDuring(b, () => whoami(b, token).expect(401))).to.equal(0);
  });

  it('verifies with a derivation when Redis is unreachable', async () => {
    const a = await instance({ SERVICE_AUTH_REDIS_URL: 'redis://127.0.0.1:1' });
    const { token } = await tokenOf(a);
    expect(await derivationsDuring(a, () => whoami(a, token).expect(200))).to.equal(1);
    // The log says what stops being shared: here, with rate limits off, only verified tokens.
    await a.auth.close();
    const b = await instance({ SERVICE_AUTH_REDIS_URL: 'redis://127.0.0.1:1', SERVICE_AUTH_RATE_LIMIT_ENABLED: false });
    await whoami(b, token).expect(200);
    expect(b.log.text()).to.match(
      /Redis at redis:\/\/127\.0\.0\.1:1 is unreachable \(.*\); each instance derives the tokens it has not verified itself until it is back/,
    );
    expect(b.log.text()).not.to.contain('rate limits');
  });
});
