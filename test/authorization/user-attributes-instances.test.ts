/**
 * `auth.invalidateUser` on two instances sharing one database (CONTRACT-3 §21): b holds a user's
 * attribute values (its resolver is not asked again while the feed is fresh), and once a has
 * invalidated the user, b reads them again within the feed's interval and decides with the new
 * ones. b's feed clock is held: the interval passes when the test says so, without waiting.
 */
import { expect } from 'chai';
import type { Request } from 'express';
import request from 'supertest';
import { createTestApp, PASSWORD, sessionCookieFrom, temporaryDatabase, type TestApp } from '../helpers/app.js';
import { holdFeedClock, type FeedClock } from '../helpers/feed-clock.js';
import { createPostgresDatabase, describePostgres } from '../helpers/services.js';

const DOCS = new Map([
  [1, { id: 1, team: 'red' }],
  [2, { id: 2, team: 'blue' }],
]);

function instancesSuite(database: () => Promise<{ url: string; drop: () => Promise<void> }>) {
  let a: TestApp;
  let b: TestApp;
  let drop: () => Promise<void>;
  let clock: FeedClock;
  /** The application's directory, which both instances' resolvers read; and b's reads of it. */
  const teams = new Map<string, string>();
  const readOnB: string[] = [];

  const instance = (url: string, reads?: string[]) =>
    createTestApp({ SERVICE_AUTH_DATABASE_URL: url, SERVICE_AUTH_RATE_LIMIT_ENABLED: false }, (app, auth) => {
      auth.defineUserAttributes(['team'], (user) => {
        reads?.push(user.email);
        return { team: teams.get(user.email) };
      });
      auth.defineRole('teammate', [{ action: 'read', subject: 'Doc', conditions: { team: '${user.team}' } }]);
      const load = (req: Request) => DOCS.get(Number(req.params['id'])) ?? null;
      app.get('/docs/:id', auth.require({ action: 'read', subject: 'Doc', load }), (_req, res) =>
        res.json({ ok: true }),
      );
    });

  before(async () => {
    const made = await database();
    drop = made.drop;
    a = await instance(made.url);
    b = await instance(made.url, readOnB);
    clock = holdFeedClock(b);
  });
  after(async () => {
    await a?.auth.close();
    await b?.auth.close();
    await drop?.();
  });

  it('drops what b holds for the user within the interval after a invalidates them, and nobody else’s', async () => {
    const cookies: Record<string, string> = {};
    const users: Record<string, { id: number; email: string }> = {};
    for (const name of ['ada', 'bob']) {
      users[name] = await a.auth.users.create({
        email: `${name}@example.com`,
        password: PASSWORD,
        roles: ['teammate'],
      });
      cookies[name] = sessionCookieFrom(
        await request(a.app)
          .post('/service-auth/login')
          .send({ email: `${name}@example.com`, password: PASSWORD })
          .expect(200),
      )!;
      teams.set(`${name}@example.com`, 'red');
    }
    const onB = (who: string, id: number) => request(b.app).get(`/docs/${id}`).set('Cookie', cookies[who]!);

    await onB('ada', 1).expect(200);
    await onB('bob', 1).expect(200);
    clock.passInterval();
    await onB('ada', 1).expect(200);
    expect(readOnB.sort(), 'each read once').to.deep.equal(['ada@example.com', 'bob@example.com']);

    teams.set('ada@example.com', 'blue');
    teams.set('bob@example.com', 'blue');
    await onB('ada', 1).expect(200);
    expect(readOnB, 'held: the resolver is not asked again').to.have.length(2);

    await a.auth.invalidateUser(users['ada']!);
    clock.passInterval();
    readOnB.length = 0;
    await onB('ada', 1).expect(403);
    await onB('ada', 2).expect(200);
    await onB('bob', 1).expect(200);
    expect(readOnB, 'ada’s values read again, bob’s still held').to.deep.equal(['ada@example.com']);
  });
}

describe('user attributes on two instances [SQLite]', () => {
  instancesSuite(async () => {
    const file = await temporaryDatabase();
    return { url: file.url, drop: file.remove };
  });
});

describePostgres('user attributes on two instances', () => {
  instancesSuite(createPostgresDatabase);
});
