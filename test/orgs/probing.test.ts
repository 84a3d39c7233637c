/**
 * A stranger cannot tell an organization that exists from one that does not by the work its
 * request costs (CONTRACT-3 §20.2: a non-member's 404 is the one of a missing organization):
 * statements run before the answer are counted, as test/http/forgot-timing.test.ts counts them.
 */
import { expect } from 'chai';
import request from 'supertest';
import { PASSWORD, sessionCookieFrom } from '../helpers/app.js';
import { holdFeedClock } from '../helpers/feed-clock.js';
import { countingApp, type CountingApp } from '../helpers/statements.js';
import { knowOrgRoles } from './org-app.js';

describe('probing for organizations', () => {
  let t: CountingApp;
  let cookie: string;

  before(async () => {
    t = await countingApp({ SERVICE_AUTH_RATE_LIMIT_ENABLED: false });
    // Held: on a busy machine a probe may otherwise outlast the feed's interval, and the feed read
    // that follows would count against whichever probe it fell in.
    holdFeedClock(t);
    knowOrgRoles(t);
    t.auth.defineOrgRole('owner', [{ action: 'manage', subject: 'all' }]);
    const ada = await t.auth.users.create({ email: 'ada@example.com', password: PASSWORD });
    await t.auth.users.create({ email: 'eve@example.com', password: PASSWORD });
    await t.auth.orgs.create({ name: 'Acme', slug: 'acme', owner: ada.id });
    cookie = sessionCookieFrom(
      await request(t.app)
        .post('/service-auth/login')
        .send({ email: 'eve@example.com', password: PASSWORD })
        .expect(200),
    )!;
  });
  after(() => t.auth.close());

  /** The statements a stranger's request for the organization runs before its answer, and the answer. */
  async function probe(org: string): Promise<{ statements: number; body: unknown }> {
    const before = t.statements();
    const { body } = await request(t.app).get(`/service-auth/api/orgs/${org}`).set('Cookie', cookie).expect(404);
    return { statements: t.statementsAtAnswer.at(-1)! - before, body };
  }

  it('runs as many statements for an organization that exists as for one that does not, asked again and again', async () => {
    const acme = await t.auth.orgs.get('acme');
    for (const [existing, missing] of [
      ['acme', 'nowhere'],
      [String(acme.id), '999'],
    ] as const) {
      // The first of each may read what is then held; after it, the same work every time.
      await probe(existing);
      await probe(missing);
      for (let round = 0; round < 3; round++) {
        const [a, b] = [await probe(existing), await probe(missing)];
        expect(a.body).to.deep.equal(b.body);
        expect(a.statements, `${existing} against ${missing}`).to.equal(b.statements);
      }
    }
  });

  it('finds an organization created after it was asked for and not found', async () => {
    await probe('latecomer');
    const ada = await t.auth.users.get('ada@example.com');
    await t.auth.orgs.create({ name: 'Latecomer', slug: 'latecomer', owner: ada.id });
    const cookieOfAda = sessionCookieFrom(
      await request(t.app)
        .post('/service-auth/login')
        .send({ email: 'ada@example.com', password: PASSWORD })
        .expect(200),
    )!;
    await request(t.app).get('/service-auth/api/orgs/latecomer').set('Cookie', cookieOfAda).expect(200);
  });
});
