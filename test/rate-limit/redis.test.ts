import { expect } from 'chai';
import { Redis } from 'ioredis';
import request from 'supertest';
import { createLimiter } from '../../src/rate-limit/limiter.js';
import { createTestApp, PASSWORD, temporaryDatabase } from '../helpers/app.js';
import { clearRateLimits, describeRedis, redisPrefix, redisSettings, redisUrl } from '../helpers/services.js';
import { parseRate } from '../../src/config/rates.js';
import { limiterContract } from './limiter-contract.js';

describeRedis('limiter', () => {
  let redis: Redis;
  before(async () => {
    redis = new Redis(redisUrl!, { maxRetriesPerRequest: 1, keyPrefix: redisPrefix });
    await redis.ping(); // an unreachable server fails the suite here
  });
  after(() => redis.quit());

  limiterContract((name, rate) => createLimiter({ name, rate: parseRate(rate), redis }));
});

describeRedis('rate limits shared through SERVICE_AUTH_REDIS_URL', () => {
  before(async () => {
    const redis = new Redis(redisUrl!, { maxRetriesPerRequest: 1 });
    await redis.ping(); // an unreachable server fails the suite here
    await redis.quit();
  });
  beforeEach(() => clearRateLimits(redisUrl!));
  after(() => clearRateLimits(redisUrl!));

  it('counts a limit once across every instance', async () => {
    const database = await temporaryDatabase();
    const a = await createTestApp({ SERVICE_AUTH_DATABASE_URL: database.url, ...redisSettings() });
    const b = await createTestApp({ SERVICE_AUTH_DATABASE_URL: database.url, ...redisSettings() });
    try {
      await request(a.app)
        .post('/service-auth/register')
        .send({ email: 'one@example.com', password: PASSWORD })
        .expect(201);
      await request(b.app)
        .post('/service-auth/register')
        .send({ email: 'two@example.com', password: PASSWORD })
        .expect(201);
      await request(a.app)
        .post('/service-auth/register')
        .send({ email: 'three@example.com', password: PASSWORD })
        .expect(201);
      const refused = await request(b.app)
        .post('/service-auth/register')
        .send({ email: 'four@example.com', password: PASSWORD })
        .expect(429);
      expect(refused.body.code).to.equal('rate_limited');
    } finally {
      await a.auth.close();
      await b.auth.close();
      await database.remove();
    }
  });

  it('counts failed logins per pair across instances', async () => {
    const database = await temporaryDatabase();
    const a = await createTestApp({ SERVICE_AUTH_DATABASE_URL: database.url, ...redisSettings() });
    const b = await createTestApp({ SERVICE_AUTH_DATABASE_URL: database.url, ...redisSettings() });
    try {
      await a.auth.users.create({ email: 'ada@example.com', password: PASSWORD });
      for (const t of [a, b, a, b, a]) {
        await request(t.app)
          .post('/service-auth/login')
          .send({ email: 'ada@example.com', password: 'Wrong-Password-1' })
          .expect(401);
      }
      await request(b.app)
        .post('/service-auth/login')
        .send({ email: 'ada@example.com', password: PASSWORD })
        .expect(429);
    } finally {
      await a.auth.close();
      await b.auth.close();
      await database.remove();
    }
  });
  it('keeps the counters of apps with different SERVICE_AUTH_REDIS_PREFIX apart, each under its prefix', async () => {
    const database = await temporaryDatabase();
    const a = await createTestApp({ SERVICE_AUTH_DATABASE_URL: database.url, ...redisSettings() });
    const b = await createTestApp({
      SERVICE_AUTH_DATABASE_URL: database.url,
      ...redisSettings(),
      SERVICE_AUTH_REDIS_PREFIX: `${redisPrefix}other:`,
    });
    const redis = new Redis(redisUrl!, { maxRetriesPerRequest: 1 });
    try {
      for (const n of [1, 2, 3])
        await request(a.app)
          .post('/service-auth/register')
          .send({ email: `a${n}@example.com`, password: PASSWORD })
          .expect(201);
      await request(a.app)
        .post('/service-auth/register')
        .send({ email: 'a4@example.com', password: PASSWORD })
        .expect(429);
      await request(b.app)
        .post('/service-auth/register')
        .send({ email: 'b1@example.com', password: PASSWORD })
        .expect(201);
      const keys = await redis.keys(`${redisPrefix}*`);
      expect(
        keys.filter((key) => key.startsWith(`${redisPrefix}service-auth:register`)),
        'a counts under its prefix',
      ).to.have.length(1);
      expect(
        keys.filter((key) => key.startsWith(`${redisPrefix}other:service-auth:register`)),
        'b under its own',
      ).to.have.length(1);
    } finally {
      redis.disconnect();
      await a.auth.close();
      await b.auth.close();
      await database.remove();
    }
  });
});

describe('rate limits when Redis is unreachable', () => {
  it('fall back to counting in memory, keep serving, and log it', async () => {
    const t = await createTestApp({ SERVICE_AUTH_REDIS_URL: 'redis://127.0.0.1:1' });
    try {
      for (const n of [1, 2, 3]) {
        await request(t.app)
          .post('/service-auth/register')
          .send({ email: `u${n}@example.com`, password: PASSWORD })
          .expect(201);
      }
      await request(t.app)
        .post('/service-auth/register')
        .send({ email: 'u4@example.com', password: PASSWORD })
        .expect(429);
      for (let i = 0; i < 100 && !t.log.text().includes('unreachable'); i++)
        await new Promise((r) => setTimeout(r, 20));
      expect(
        t.log.entries.some(
          (e) => e.level === 'error' && e.message.includes('Redis at redis://127.0.0.1:1 is unreachable'),
        ),
      ).to.equal(true);
    } finally {
      await t.auth.close();
    }
  });
});
