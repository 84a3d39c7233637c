import { expect } from 'chai';
import { randomBytes } from 'node:crypto';
import request from 'supertest';
import { ApiToken } from '../../src/storage/entities/index.js';
import { DerivationPool, DerivationsBusyError } from '../../src/tokens/derivations.js';
import { assembleToken } from '../../src/tokens/format.js';
import { createTestApp, PASSWORD, type TestApp } from '../helpers/app.js';

const call = (t: TestApp, token: string, ip: string) =>
  request(t.app).get('/api/whoami').set('Authorization', `Bearer ${token}`).set('X-Forwarded-For', ip);

async function until(check: () => boolean, what: string): Promise<void> {
  const deadline = Date.now() + 5000;
  while (!check()) {
    if (Date.now() > deadline) expect.fail(`never ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}

describe('a flood of forged tokens', () => {
  it('cannot starve a real token: from a full queue, its first use is served next (200, never 503)', async () => {
    // At the real cost (600,000 iterations), so that the forgeries keep the queue full.
    const t = await createTestApp(
      { SERVICE_AUTH_RATE_LIMIT_ENABLED: false, SERVICE_AUTH_INSECURE_FAST_HASHING: false, 'trust proxy': true },
      (app, auth) => app.get('/api/whoami', auth.tokenRequired, (req, res) => res.json({ email: req.user!.email })),
    );
    const pool = t.parts.derivations;
    const attackers = ['198.51.100.1', '198.51.100.2', '198.51.100.3'];
    const flood: Promise<request.Response>[] = [];
    let busy = 0;
    const countBusy = (response: request.Response) => {
      if (response.status === 503) busy++;
      return response;
    };
    try {
      const user = await t.auth.users.create({ email: 'ada@example.com', password: PASSWORD });
      const real = await t.auth.tokens.create(user.id, { name: 'real' });
      // A row whose derivation is cheap (one iteration), so that the attackers' earlier failures
      // cost the test no time.
      const em = (await t.parts.storage.em()).fork();
      em.create(ApiToken, {
        publicId: 'cheapcheapcheap1',
        user: user.id,
        name: 'cheap',
        algorithm: 'pbkdf2-sha256',
        hash: '00'.repeat(32),
        salt: '00'.repeat(32),
        iterations: 1,
        scopes: [],
      });
      await em.flush();
      for (const ip of attackers)
        await call(t, assembleToken('sat', 'cheapcheapcheap1', randomBytes(32)), ip).expect(401);

      // The flood: forgeries for the real token's own id (valid check, wrong secret: each needs a
      // derivation), 15 at once from each address, more than the queue holds.
      for (const ip of attackers) {
        for (let i = 0; i < 15; i++)
          flood.push(call(t, assembleToken('sat', real.id, randomBytes(32)), ip).then(countBusy));
      }
      await until(() => busy > 0, 'a full queue'); // past its 32 places, forgeries are refused as busy

      const before = pool.derivations;
      const response = await call(t, real.token, '203.0.113.7');
      expect(response.status).to.equal(200);
      // Served next: besides its own derivation, only those started meanwhile in the pool's other
      // slot (one or two at a time), never the 32 forgeries queued before it.
      expect(pool.derivations - before).to.be.within(1, 4);
    } finally {
      await t.auth.close(); // refuses the forgeries still queued
      const statuses = new Set((await Promise.all(flood)).map((response) => response.status));
      expect([...statuses].filter((status) => status !== 401 && status !== 503)).to.deep.equal([]);
    }
  });

  describe('the derivation pool', () => {
    const salt = randomBytes(32).toString('hex');

    it('serves clients with fewer failed derivations first, and refuses the worst-ranked one when full', async () => {
      const pool = new DerivationPool(1, 2);
      pool.failed('forger');
      const order: string[] = [];
      const derive = (name: string, client?: string) =>
        pool.derive(name, salt, 1000, client).then(
          () => order.push(name),
          (error: unknown) => order.push(`${name} refused: ${error instanceof DerivationsBusyError}`),
        );
      const all = [
        derive('f1', 'forger'),
        derive('f2', 'forger'),
        derive('f3', 'forger'),
        derive('real', 'user'),
        derive('creation'),
      ];
      await Promise.all(all);
      // f1 ran at once; f2 and f3 waited; the user's and the creation (no client) ranked before them,
      // and took the places of f3, then f2.
      expect(order).to.deep.equal(['f3 refused: true', 'f2 refused: true', 'f1', 'real', 'creation']);
    });

    it('refuses what still waits at close', async () => {
      const pool = new DerivationPool(1, 4);
      const running = pool.derive('a', salt, 1000);
      const waiting = pool.derive('b', salt, 1000).catch((error: unknown) => error);
      pool.close();
      expect(await waiting).to.be.instanceOf(DerivationsBusyError);
      await running;
      expect(pool.derivations).to.equal(1);
    });
  });
});
