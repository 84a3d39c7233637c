/**
 * Two instances on one database: a membership given, changed or ended on one (or an organization
 * deleted there) decides requests on the other within the change feed's interval (CONTRACT-3
 * §20.2: within a second), for the abilities cached per (user, organization, roles) too. The
 * second instance's feed clock is held, so "within the interval" is tested without waiting it out.
 */
import { expect } from 'chai';
import request from 'supertest';
import { createTestApp, PASSWORD, temporaryDatabase, type TestApp } from '../helpers/app.js';
import { holdFeedClock, type FeedClock } from '../helpers/feed-clock.js';
import { createPostgresDatabase, describePostgres } from '../helpers/services.js';

function orgInstancesSuite(database: () => Promise<{ url: string; drop: () => Promise<void> }>) {
  let a: TestApp;
  let b: TestApp;
  let drop: () => Promise<void>;
  let clock: FeedClock;
  let token: string;

  const instance = (url: string) =>
    createTestApp({ SERVICE_AUTH_DATABASE_URL: url, SERVICE_AUTH_RATE_LIMIT_ENABLED: false }, (app, auth) => {
      auth.defineOrgRole('owner', [{ action: 'manage', subject: 'all' }]);
      auth.defineOrgRole('viewer', [{ action: 'read', subject: 'Project' }]);
      auth.defineOrgRole('member', { includes: ['viewer'], rules: [{ action: 'create', subject: 'Project' }] });
      app.get(
        '/orgs/:org',
        auth.orgRequired(),
        (req, res) => void res.json({ slug: req.org!.slug, roles: req.membership!.roles }),
      );
      app.post(
        '/orgs/:org/projects',
        auth.orgRequired(),
        auth.require({ action: 'create', subject: 'Project' }),
        (_req, res) => void res.status(201).json({}),
      );
    });
  const get = (path: string) => request(b.app).get(path).set('Authorization', `Bearer ${token}`);
  const create = () => request(b.app).post('/orgs/acme/projects').set('Authorization', `Bearer ${token}`);

  beforeEach(async () => {
    const made = await database();
    drop = made.drop;
    a = await instance(made.url);
    b = await instance(made.url);
    clock = holdFeedClock(b);
    const olga = await a.auth.users.create({ email: 'olga@example.com', password: PASSWORD });
    const mia = await a.auth.users.create({ email: 'mia@example.com', password: PASSWORD });
    await a.auth.orgs.create({ name: 'Acme', slug: 'acme', owner: olga.id });
    await a.auth.orgs.addMember('acme', mia.id, ['viewer']);
    token = (await a.auth.tokens.create(mia.id, { name: 'script' })).token;
    expect((await get('/orgs/acme').expect(200)).body).to.deep.equal({ slug: 'acme', roles: ['viewer'] });
    await create().expect(403);
  });

  afterEach(async () => {
    await a.auth.close();
    await b.auth.close();
    await drop();
  });

  it("decides with a member's new roles within the interval", async () => {
    await a.auth.orgs.setMemberRoles('acme', 'mia@example.com', ['member']);
    clock.passInterval();
    await create().expect(201);
    expect((await get('/orgs/acme').expect(200)).body.roles).to.deep.equal(['member']);
  });

  it('refuses a member removed elsewhere within the interval, as a stranger (404)', async () => {
    await a.auth.orgs.removeMember('acme', 'mia@example.com');
    clock.passInterval();
    expect((await get('/orgs/acme').expect(404)).body.code).to.equal('not_found');
  });

  it('knows an organization deleted elsewhere is gone within the interval', async () => {
    await a.auth.orgs.delete('acme');
    clock.passInterval();
    // mia's token was unbound: it lives on; the organization does not.
    expect((await get('/orgs/acme').expect(404)).body.code).to.equal('not_found');
  });
}

describe('organizations across instances [SQLite]', () => {
  orgInstancesSuite(async () => {
    const file = await temporaryDatabase();
    return { url: file.url, drop: file.remove };
  });
});

describePostgres('organizations across instances', () => {
  orgInstancesSuite(createPostgresDatabase);
});
