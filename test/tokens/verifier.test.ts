import { expect } from 'chai';
import { createHash, pbkdf2Sync, randomBytes } from 'node:crypto';
import request from 'supertest';
import { ApiToken } from '../../src/storage/entities/index.js';
import { DerivationPool, DerivationsBusyError } from '../../src/tokens/derivations.js';
import { assembleToken } from '../../src/tokens/format.js';
import { createTestApp, openDatabase, PASSWORD, temporaryDatabase, type TestApp } from '../helpers/app.js';
import { holdFeedClock } from '../helpers/feed-clock.js';

const withTokenRoute = (settings: Record<string, unknown> = {}) =>
  createTestApp({ SERVICE_AUTH_RATE_LIMIT_ENABLED: false, ...settings }, (app, auth) => {
    app.get('/api/whoami', auth.tokenRequired, (req, res) => res.json({ email: req.user!.email }));
  });

const call = (t: TestApp, token: string) => request(t.app).get('/api/whoami').set('Authorization', `Bearer ${token}`);

/** Derivations run while `work` runs: the tests count work, never time it. */
async function derivationsDuring(t: TestApp, work: () => Promise<unknown>): Promise<number> {
  const before = t.parts.derivations.derivations;
  await work();
  return t.parts.derivations.derivations - before;
}

describe('token verification', () => {
  describe('on one instance', () => {
    let database: Awaited<ReturnType<typeof temporaryDatabase>>;
    let t: TestApp;
    let userId: number;
    before(async () => {
      database = await temporaryDatabase();
      t = await withTokenRoute({ SERVICE_AUTH_DATABASE_URL: database.url, SERVICE_AUTH_INSECURE_FAST_HASHING: false });
      userId = (await t.auth.users.create({ email: 'ada@example.com', password: PASSWORD })).id;
      // Other people's tokens in the table: verification must not depend on how many there are.
      const orm = await openDatabase(database.url);
      try {
        const em = orm.em.fork();
        const other = await t.auth.users.create({ email: 'other@example.com', password: PASSWORD });
        for (let i = 0; i < 50; i++) {
          em.create(ApiToken, {
            publicId: `filler${i}`,
            user: other.id,
            name: `filler ${i}`,
            algorithm: 'pbkdf2-sha256',
            hash: randomBytes(32).toString('hex'),
            salt: randomBytes(32).toString('hex'),
            iterations: 600_000,
            scopes: [],
          });
        }
        await em.flush();
      } finally {
        await orm.close();
      }
    });
    after(async () => {
      await t.auth.close();
      await database.remove();
    });

    const fresh = async () => (await t.auth.tokens.create(userId, { name: 'ci' })).token;

    it('stores PBKDF2-HMAC-SHA256 of the whole token with a 32-byte salt and 600,000 iterations, never the token', async () => {
      const created = await t.auth.tokens.create(userId, { name: 'stored' });
      const orm = await openDatabase(database.url);
      try {
        const row = await orm.em.fork().findOneOrFail(ApiToken, { publicId: created.id });
        expect(row.algorithm).to.equal('pbkdf2-sha256');
        expect(row.iterations).to.equal(600_000);
        expect(Buffer.from(row.salt!, 'hex')).to.have.length(32);
        expect(row.hash).to.equal(
          pbkdf2Sync(created.token, Buffer.from(row.salt!, 'hex'), 600_000, 32, 'sha256').toString('hex'),
        );
        const secret = created.token.split('_')[2]!;
        expect(JSON.stringify(row)).not.to.contain(secret);
      } finally {
        await orm.close();
      }
      expect(t.log.text()).not.to.contain(created.token.split('_')[2]!);
    });

    it('costs exactly one derivation on first use, and none on later uses', async () => {
      const token = await fresh();
      expect(await derivationsDuring(t, () => call(t, token).expect(200))).to.equal(1);
      expect(
        await derivationsDuring(t, async () => {
          for (let i = 0; i < 5; i++) await call(t, token).expect(200);
        }),
      ).to.equal(0);
    });

    it('shares one derivation among 20 concurrent first uses', async () => {
      const token = await fresh();
      const responses: request.Response[] = [];
      const count = await derivationsDuring(t, async () => {
        responses.push(...(await Promise.all(Array.from({ length: 20 }, () => call(t, token)))));
      });
      expect(responses.map((r) => r.status)).to.deep.equal(Array(20).fill(200));
      expect(count).to.equal(1);
    });

    it('costs no derivation for malformed tokens, bad checks and unknown ids', async () => {
      const token = await fresh();
      const [prefix, id] = token.split('_') as [string, string];
      const typo = token.slice(0, -1) + (token.endsWith('A') ? 'B' : 'A');
      // A well-formed token (valid check) for an id that does not exist.
      const unknownId = (await t.auth.tokens.create(userId, { name: 'gone' })).token.replace(
        /_[A-Za-z0-9]{16}_/,
        `_${'Z'.repeat(16)}_`,
      );
      const count = await derivationsDuring(t, async () => {
        for (const bad of ['x', `${prefix}_${id}_short`, typo, token.slice(0, -4), unknownId, '', 'a'.repeat(500)]) {
          const response = await call(t, bad);
          expect(response.status, bad).to.equal(401);
        }
      });
      expect(count).to.equal(0);
    });

    it('refuses invalid tokens with 401 invalid_token and WWW-Authenticate: Bearer realm="service-auth", error="invalid_token"', async () => {
      const response = await call(t, 'sat_nope_nope').expect(401);
      expect(response.body.code).to.equal('invalid_token');
      expect(response.headers['www-authenticate']).to.equal('Bearer realm="service-auth", error="invalid_token"');
      const malformedHeader = await request(t.app).get('/api/whoami').set('Authorization', 'Bearer').expect(401);
      expect(malformedHeader.body.code).to.equal('invalid_token');
    });

    it('costs one derivation for a wrong secret on a real id not yet seen, and none once the real one was', async () => {
      const token = await fresh();
      const id = token.split('_')[1]!;
      // Correctly checked forgeries for the real id: only the derivation can tell them apart.
      const wrong = assembleToken('sat', id, randomBytes(32));
      const another = assembleToken('sat', id, randomBytes(32));

      expect(await derivationsDuring(t, () => call(t, wrong).expect(401))).to.equal(1);
      expect(await derivationsDuring(t, () => call(t, wrong).expect(401))).to.equal(0); // remembered
      expect(await derivationsDuring(t, () => call(t, token).expect(200))).to.equal(1); // the genuine one
      expect(await derivationsDuring(t, () => call(t, another).expect(401))).to.equal(0); // one raw value per id
    });

    it('refuses an expired token without a derivation', async () => {
      const created = await t.auth.tokens.create(userId, { name: 'old', expiresInDays: 1 });
      const orm = await openDatabase(database.url);
      try {
        await orm.em
          .fork()
          .nativeUpdate(ApiToken, { publicId: created.id }, { expiresAt: new Date(Date.now() - 1000) });
      } finally {
        await orm.close();
      }
      expect(await derivationsDuring(t, () => call(t, created.token).expect(401))).to.equal(0);
    });

    it('refuses a revoked token at once on the instance that revoked it', async () => {
      const token = await fresh();
      await call(t, token).expect(200);
      await t.auth.tokens.revoke(token.split('_')[1]!);
      expect(await derivationsDuring(t, () => call(t, token).expect(401))).to.equal(0);
    });

    it('keeps last_used_at without a write per request, and writes it at the next flush (at the latest, at close)', async () => {
      const own = await temporaryDatabase();
      const app = await withTokenRoute({ SERVICE_AUTH_DATABASE_URL: own.url });
      const orm = await openDatabase(own.url);
      try {
        const user = await app.auth.users.create({ email: 'ada@example.com', password: PASSWORD });
        const created = await app.auth.tokens.create(user.id, { name: 'used' });
        const lastUsed = async () => (await orm.em.fork().findOneOrFail(ApiToken, { publicId: created.id })).lastUsedAt;
        for (let i = 0; i < 3; i++) await call(app, created.token).expect(200);
        expect(await lastUsed()).to.equal(null);
        await app.auth.close();
        const stored = await lastUsed();
        expect(stored).to.be.instanceOf(Date);
        expect(Date.now() - stored!.getTime()).to.be.below(60_000);
      } finally {
        await orm.close();
        await app.auth.close();
        await own.remove();
      }
    });
  });

  describe('across instances sharing one database file', () => {
    it('refuses a token revoked on another instance within a second', async () => {
      const database = await temporaryDatabase();
      const a = await withTokenRoute({ SERVICE_AUTH_DATABASE_URL: database.url });
      const b = await withTokenRoute({ SERVICE_AUTH_DATABASE_URL: database.url });
      try {
        const user = await a.auth.users.create({ email: 'ada@example.com', password: PASSWORD });
        const created = await a.auth.tokens.create(user.id, { name: 'shared' });
        const clock = holdFeedClock(b);
        await call(b, created.token).expect(200);
        await a.auth.tokens.revoke(created.id);
        await call(a, created.token).expect(401);
        clock.passInterval();
        await call(b, created.token).expect(401);
      } finally {
        await a.auth.close();
        await b.auth.close();
        await database.remove();
      }
    });
  });

  describe('failed attempts', () => {
    it('answer 429 past SERVICE_AUTH_RATE_LIMIT_TOKEN_FAILURES, without deriving', async () => {
      const t = await createTestApp({ SERVICE_AUTH_RATE_LIMIT_TOKEN_FAILURES: '3 per minute' }, (app, auth) => {
        app.get('/api/whoami', auth.tokenRequired, (req, res) => res.json({ email: req.user!.email }));
      });
      try {
        const user = await t.auth.users.create({ email: 'ada@example.com', password: PASSWORD });
        const { token } = await t.auth.tokens.create(user.id, { name: 'ci' });
        for (let i = 0; i < 3; i++) await call(t, `sat_nope${i}_x`).expect(401);
        const fourth = await call(t, 'sat_nope3_x').expect(429);
        expect(fourth.body.code).to.equal('rate_limited');
        expect(Number(fourth.headers['retry-after'])).to.be.within(1, 60);
        // Past the limit, even a real token that would need a derivation is not derived.
        expect(await derivationsDuring(t, () => call(t, token).expect(429))).to.equal(0);
      } finally {
        await t.auth.close();
      }
    });
  });

  describe('legacy tokens (unsalted SHA-256)', () => {
    it('are found by their hash, still valid, listed as legacy, and never rewritten', async () => {
      const database = await temporaryDatabase();
      const t = await withTokenRoute({ SERVICE_AUTH_DATABASE_URL: database.url });
      try {
        const user = await t.auth.users.create({ email: 'ada@example.com', password: PASSWORD });
        const raw = `legacy-${randomBytes(20).toString('hex')}`;
        const sha256 = createHash('sha256').update(raw).digest('hex');
        const imported = await t.auth.tokens.importLegacy(user.id, {
          sha256: sha256.toUpperCase(),
          name: 'old script',
        });
        expect(imported).to.include({ name: 'old script', legacy: true, expires_at: null });

        expect(await derivationsDuring(t, () => call(t, raw).expect(200))).to.equal(0);
        await call(t, `${raw}x`).expect(401);

        const listed = await t.auth.tokens.list({ user: user.id });
        expect(listed.map((token) => [token.id, token.legacy])).to.deep.equal([[imported.id, true]]);
        const orm = await openDatabase(database.url);
        try {
          const row = await orm.em.fork().findOneOrFail(ApiToken, { publicId: imported.id });
          expect([row.algorithm, row.hash, row.salt]).to.deep.equal(['sha256', sha256, null]);
        } finally {
          await orm.close();
        }

        await t.auth.tokens.revoke(imported.id);
        await call(t, raw).expect(401);
      } finally {
        await t.auth.close();
        await database.remove();
      }
    });

    it('refuse a malformed hash and a second import of the same one', async () => {
      const t = await withTokenRoute();
      try {
        const user = await t.auth.users.create({ email: 'ada@example.com', password: PASSWORD });
        const bad = await t.auth.tokens.importLegacy(user.id, { sha256: 'xyz', name: '' }).catch((e: unknown) => e);
        expect(bad).to.include({ code: 'bad_request' });
        expect((bad as { errors: { field: string }[] }).errors.map((e) => e.field)).to.deep.equal(['sha256', 'name']);
        const sha256 = createHash('sha256').update('raw').digest('hex');
        await t.auth.tokens.importLegacy(user.id, { sha256, name: 'one' });
        expect(await t.auth.tokens.importLegacy(user.id, { sha256, name: 'two' }).catch((e: unknown) => e)).to.include({
          code: 'bad_request',
        });
      } finally {
        await t.auth.close();
      }
    });
  });

  describe('the derivation pool', () => {
    it('runs derivations off the event loop', async () => {
      const pool = new DerivationPool(1, 4);
      let ticked = false;
      const tick = new Promise<void>((resolve) =>
        setImmediate(() => {
          ticked = true;
          resolve();
        }),
      );
      const derivation = pool.derive('token', randomBytes(32).toString('hex'), 600_000).then(() => ticked);
      await tick;
      expect(await derivation).to.equal(true);
    });

    it('bounds concurrency and the queue, refusing at once past it', async () => {
      const pool = new DerivationPool(1, 2);
      const salt = randomBytes(32).toString('hex');
      const running = [
        pool.derive('a', salt, 100_000),
        pool.derive('b', salt, 100_000),
        pool.derive('c', salt, 100_000),
      ];
      await new Promise((resolve) => setImmediate(resolve));
      expect(pool.derivations).to.equal(1); // one at a time
      const refused = await pool.derive('d', salt, 100_000).catch((e: unknown) => e);
      expect(refused).to.be.instanceOf(DerivationsBusyError);
      await Promise.all(running);
      expect(pool.derivations).to.equal(3);
    });
  });
});
