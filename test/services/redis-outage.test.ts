/**
 * When Redis goes away, each instance keeps serving and limits on its own, in memory
 * (rate-limiter-flexible's insurance limiter), logs it, and shares the counters again once Redis
 * is back. The Redis stopped here is a private one: the machine's shared Redis is never touched.
 */
import { expect } from 'chai';
import { postgresUrl, whenService } from '../helpers/services.js';
import { call } from './client.js';
import { startCluster, type Cluster } from './instances.js';
import { startThrowawayRedis, type ThrowawayRedis } from './throwaway-redis.js';

const LIMIT = 4;
let serial = 0;

/** One failed login from a new email, so that only the per-client login limit counts it. */
async function loginAttempt(base: string): Promise<number> {
  const response = await call(base, '/service-auth/login', {
    body: { email: `outage${++serial}@example.com`, password: 'Wrong-Password-1' },
  });
  await response.arrayBuffer();
  return response.status;
}

async function waitForOutput(
  instance: Cluster['instances'][number],
  pattern: RegExp,
  withinMs = 10_000,
): Promise<void> {
  const started = Date.now();
  while (!pattern.test(instance.output())) {
    if (Date.now() - started > withinMs)
      expect.fail(`no line matching ${pattern} within ${withinMs} ms; output:\n${instance.output()}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

whenService('PostgreSQL', postgresUrl, 'SERVICE_AUTH_TEST_DATABASE_URL', () =>
  describe('two instances when their Redis fails and comes back [PostgreSQL + own redis-server]', function () {
    this.timeout(60_000);
    let redis: ThrowawayRedis;
    let cluster: Cluster;
    let a: Cluster['instances'][number], b: Cluster['instances'][number];

    before(async () => {
      redis = await startThrowawayRedis();
      cluster = await startCluster(2, {
        SERVICE_AUTH_REDIS_URL: redis.url,
        SERVICE_AUTH_RATE_LIMIT_LOGIN: `${LIMIT} per minute`,
        SERVICE_AUTH_RATE_LIMIT_LOGIN_FAILURES: '100 per minute',
      });
      [a, b] = cluster.instances as [typeof a, typeof b];
    });
    after(async () => {
      await cluster?.stop();
      await redis?.kill().catch(() => undefined);
    });

    it('share the limit while Redis is up', async () => {
      const statuses = [];
      for (let attempt = 0; attempt < LIMIT; attempt++) statuses.push(await loginAttempt([a, b][attempt % 2]!.url));
      expect(statuses).to.deep.equal(Array(LIMIT).fill(401));
      expect(await loginAttempt(a.url)).to.equal(429);
      expect(await loginAttempt(b.url)).to.equal(429);
    });

    it('keep serving with Redis killed, each limiting on its own, and log the outage', async () => {
      await redis.kill();
      for (const instance of [a, b]) {
        const statuses = [];
        for (let attempt = 0; attempt < LIMIT; attempt++) statuses.push(await loginAttempt(instance.url));
        expect(statuses, 'served: the limit starts afresh in memory').to.deep.equal(Array(LIMIT).fill(401));
        expect(await loginAttempt(instance.url), `attempt ${LIMIT + 1} on one instance`).to.equal(429);
        // Other routes need no Redis at all.
        expect((await call(instance.url, '/service-auth/me')).status).to.equal(401);
      }
      for (const instance of [a, b])
        await waitForOutput(
          instance,
          /Redis at redis:\/\/127\.0\.0\.1:\d+ is unreachable \(.*\); rate limits are counted per instance until it is back/,
        );
    });

    it('share the limit again once Redis is back, and log the recovery', async () => {
      await redis.restart();
      for (const instance of [a, b]) await waitForOutput(instance, /is reachable again; rate limits are shared again/);
      // The restarted Redis holds no counters; in memory each instance has used up its limit, so
      // a served request here proves the count is in Redis again, and a refusal at LIMIT + 1
      // across both proves it is shared.
      const statuses = [];
      for (let attempt = 0; attempt < LIMIT; attempt++) statuses.push(await loginAttempt([a, b][attempt % 2]!.url));
      expect(statuses).to.deep.equal(Array(LIMIT).fill(401));
      expect(await loginAttempt(b.url)).to.equal(429);
    });

    it('wait at most about a second on a Redis that is connected but stops answering, log it, and share again when it answers', async () => {
      const recoveries = (instance: typeof a) => instance.output().split('is reachable again').length - 1;
      const recoveredBefore = [a, b].map(recoveries);
      redis.pause();
      try {
        for (const instance of [a, b]) {
          let started = performance.now();
          const first = await loginAttempt(instance.url);
          expect(performance.now() - started, 'the first request waits out one command timeout').to.be.within(
            900,
            2000,
          );
          // Served (a failed login, or refused by the per-instance count it made before), not failed.
          expect([401, 429]).to.include(first);
          started = performance.now();
          await loginAttempt(instance.url);
          // Below one command timeout (1000 ms): with room for a neighbour's load (mocha's other worker).
          expect(performance.now() - started, 'later requests no longer wait').to.be.below(1000);
          await waitForOutput(
            instance,
            /Redis at redis:\/\/127\.0\.0\.1:\d+ is not answering; rate limits are counted per instance until it is back/,
          );
        }
      } finally {
        redis.resume();
      }
      for (const [i, instance] of [a, b].entries()) {
        const started = Date.now();
        while (recoveries(instance) === recoveredBefore[i]) {
          if (Date.now() - started > 10_000) expect.fail(`no recovery logged:\n${instance.output()}`);
          await new Promise((resolve) => setTimeout(resolve, 50));
        }
      }
    });
  }),
);
