/**
 * Who may change a member's roles is decided on the roles the member holds when the change is
 * written, not on the roles read a moment before: an admin (who may not make or unmake owners)
 * whose change to a member crosses an owner's promotion of that member must not demote (or
 * remove) the new owner. On PostgreSQL, where the requests run side by side on two connections.
 *
 * The interleaving is made certain, not hoped for: a transaction of the test holds the
 * organization's row while the owner's request and then the admin's queue behind it (both seen
 * waiting in pg_stat_activity); released, they run in that order.
 */
import { expect } from 'chai';
import pg from 'pg';
import request from 'supertest';
import { createTestApp, PASSWORD, sessionCookieFrom, type TestApp } from '../helpers/app.js';
import { createPostgresDatabase, describePostgres } from '../helpers/services.js';
import { defineDemoOrgRoles } from './org-roles.js';

const PREFIX = '/service-auth';

describePostgres('member role changes crossing each other', () => {
  let t: TestApp;
  let database: { url: string; drop: () => Promise<void> };
  let holder: pg.Client; // holds the organization's row
  let observer: pg.Client; // sees who waits (pg_stat_activity is a snapshot within a transaction)
  const cookies: Record<string, string> = {};
  const ids: Record<string, number> = {};

  const as = (who: string, test: request.Test) =>
    test.set('Cookie', cookies[who]!).set('Sec-Fetch-Site', 'same-origin').set('Accept', 'application/json');

  before(async () => {
    database = await createPostgresDatabase();
    t = await createTestApp({ SERVICE_AUTH_DATABASE_URL: database.url, SERVICE_AUTH_RATE_LIMIT_ENABLED: false });
    defineDemoOrgRoles(t.auth);
    for (const who of ['ada', 'bob', 'cy']) {
      const email = `${who}@example.com`;
      ids[who] = (await t.auth.users.create({ email, password: PASSWORD })).id;
      cookies[who] = sessionCookieFrom(
        await request(t.app).post(`${PREFIX}/login`).send({ email, password: PASSWORD }).expect(200),
      )!;
    }
    holder = new pg.Client({ connectionString: database.url });
    observer = new pg.Client({ connectionString: database.url });
    await Promise.all([holder.connect(), observer.connect()]);
  });
  after(async () => {
    await holder?.end();
    await observer?.end();
    await t?.auth.close();
    await database?.drop();
  });

  /** An organization of Ada's (owner) with Bob as admin and Cy as member. */
  async function team(slug: string): Promise<number> {
    const org = await t.auth.orgs.create({ name: slug, slug, owner: ids['ada']! });
    await t.auth.orgs.addMember(org.id, ids['bob']!, ['admin']);
    await t.auth.orgs.addMember(org.id, ids['cy']!, ['member']);
    return org.id;
  }

  /** Resolves once `count` statements of other connections wait for a lock. */
  async function waiting(count: number): Promise<void> {
    const deadline = Date.now() + 10_000;
    for (;;) {
      const { rows } = await observer.query(
        "SELECT count(*)::int AS n FROM pg_stat_activity WHERE datname = current_database() AND state = 'active' AND wait_event_type = 'Lock'",
      );
      if (rows[0].n >= count) return;
      if (Date.now() > deadline) throw new Error(`${rows[0].n} statements wait for a lock, not ${count}`);
      await new Promise((resolve) => setImmediate(resolve));
    }
  }

  /** Runs the owner's promotion of Cy, then the admin's `change`, queued in that order behind a held lock. */
  async function crossing(
    orgId: number,
    change: request.Test,
  ): Promise<{ promoted: request.Response; changed: request.Response }> {
    await holder.query('BEGIN');
    await holder.query('SELECT id FROM service_auth_orgs WHERE id = $1 FOR UPDATE', [orgId]);
    const promoted = as('ada', request(t.app).patch(`${PREFIX}/api/orgs/${orgId}/members/${ids['cy']}`))
      .send({ roles: ['owner'] })
      .then((r) => r);
    await waiting(1);
    const changed = as('bob', change).then((r) => r);
    await waiting(2);
    await holder.query('COMMIT');
    return { promoted: await promoted, changed: await changed };
  }

  it('refuses an admin’s change of a member who became an owner meanwhile (403), and the owner stays an owner', async () => {
    const orgId = await team('crossed-roles');
    const { promoted, changed } = await crossing(
      orgId,
      request(t.app)
        .patch(`${PREFIX}/api/orgs/${orgId}/members/${ids['cy']}`)
        .send({ roles: ['viewer'] }),
    );
    expect(promoted.status).to.equal(200);
    expect(changed.status, JSON.stringify(changed.body)).to.equal(403);
    expect(changed.body.code).to.equal('forbidden');
    const cy = (await t.auth.orgs.members(orgId)).find((member) => member.user_id === ids['cy']);
    expect(cy?.roles).to.deep.equal(['owner']);
  });

  it('refuses an admin’s removal of a member who became an owner meanwhile (403), and the owner stays', async () => {
    const orgId = await team('crossed-removal');
    const { promoted, changed } = await crossing(
      orgId,
      request(t.app).delete(`${PREFIX}/api/orgs/${orgId}/members/${ids['cy']}`),
    );
    expect(promoted.status).to.equal(200);
    expect(changed.status, JSON.stringify(changed.body)).to.equal(403);
    const cy = (await t.auth.orgs.members(orgId)).find((member) => member.user_id === ids['cy']);
    expect(cy?.roles).to.deep.equal(['owner']);
  });

  it('applies both of two changes that cross when each is allowed on what it replaces: the later one wins', async () => {
    const orgId = await team('crossed-allowed');
    const { promoted, changed } = await crossing(
      orgId,
      request(t.app)
        .patch(`${PREFIX}/api/orgs/${orgId}/members/${ids['bob']}`)
        .send({ roles: ['viewer'] }),
    );
    expect([promoted.status, changed.status]).to.deep.equal([200, 200]);
    const roles = Object.fromEntries(
      (await t.auth.orgs.members(orgId)).map((member) => [member.user_id, member.roles]),
    );
    expect(roles[ids['cy']!]).to.deep.equal(['owner']);
    expect(roles[ids['bob']!]).to.deep.equal(['viewer']);
  });
});
