/**
 * Organizations are bounded (CONTRACT-4 §30, issue 39 item 7), over HTTP as a user who floods
 * meets it: SERVICE_AUTH_RATE_LIMIT_ORGS creations a minute per user (default 5; then 429 with
 * Retry-After), and SERVICE_AUTH_MAX_ORGS_PER_USER owned (409 `too_many_organizations`, nothing
 * created), through `POST /api/orgs` and the organizations page's form alike.
 */
import { expect } from 'chai';
import request from 'supertest';
import { Organization } from '../../src/storage/entities/index.js';
import { createTestApp, PASSWORD, sessionCookieFrom, type TestApp } from '../helpers/app.js';
import { formPost } from '../helpers/forms.js';
import { defineDemoOrgRoles } from './org-roles.js';

const PREFIX = '/service-auth';

describe('organizations are bounded', () => {
  let t: TestApp;
  let counter = 0;

  async function start(settings: Record<string, unknown>): Promise<void> {
    t = await createTestApp(settings);
    defineDemoOrgRoles(t.auth);
  }
  afterEach(() => t.auth.close());

  /** A new user's session cookie. */
  async function someone(): Promise<{ id: number; cookie: string }> {
    const email = `user${++counter}@example.com`;
    const { id } = await t.auth.users.create({ email, password: PASSWORD });
    const login = await request(t.app).post(`${PREFIX}/login`).send({ email, password: PASSWORD }).expect(200);
    return { id, cookie: sessionCookieFrom(login)! };
  }
  const createJson = (cookie: string, name: string) =>
    request(t.app)
      .post(`${PREFIX}/api/orgs`)
      .set('Cookie', cookie)
      .set('Sec-Fetch-Site', 'same-origin')
      .set('Accept', 'application/json')
      .send({ name });
  const createForm = (cookie: string, name: string) =>
    formPost(t.app, '/api/orgs', { name, slug: '' }).set('Cookie', cookie);
  const organizations = async (): Promise<number> => (await t.parts.storage.em()).count(Organization, {});

  describe('SERVICE_AUTH_RATE_LIMIT_ORGS', () => {
    it('answers the 6th creation in a minute with 429 and Retry-After (default 5), creating nothing more', async () => {
      await start({});
      const ada = await someone();
      for (let n = 1; n <= 5; n++) {
        const created = await createJson(ada.cookie, `Flood ${n}`).expect(201);
        expect(created.headers['ratelimit-remaining']).to.equal(String(5 - n));
      }
      const refused = await createJson(ada.cookie, 'Flood 6').expect(429);
      expect(refused.body).to.include({ code: 'rate_limited' });
      expect(refused.body.detail).to.contain('organizations created by this account');
      expect(Number(refused.headers['retry-after'])).to.be.within(1, 60);
      expect(await organizations()).to.equal(5);
      // Per user: someone else still creates.
      await createJson((await someone()).cookie, 'Elsewhere').expect(201);
    });

    it('counts the organizations page’s form too, and answers its 6th with the rate-limited page', async () => {
      await start({});
      const bea = await someone();
      for (let n = 1; n <= 5; n++) await createForm(bea.cookie, `Form ${n}`).expect(303);
      const refused = await createForm(bea.cookie, 'Form 6').expect(429);
      expect(refused.type).to.equal('text/html');
      expect(refused.headers['retry-after']).to.match(/^\d+$/);
      // The same count as the JSON API: one user, one limit.
      await createJson(bea.cookie, 'Json 7').expect(429);
      expect(await organizations()).to.equal(5);
    });

    it('takes its rate from the key, as a rate or as a count per minute', async () => {
      await start({ SERVICE_AUTH_RATE_LIMIT_ORGS: '2' });
      const cy = await someone();
      await createJson(cy.cookie, 'One').expect(201);
      await createJson(cy.cookie, 'Two').expect(201);
      await createJson(cy.cookie, 'Three').expect(429);
    });
  });

  describe('SERVICE_AUTH_MAX_ORGS_PER_USER', () => {
    it('refuses a third owned organization with 409 too_many_organizations when the bound is 2, creating nothing', async () => {
      await start({ SERVICE_AUTH_RATE_LIMIT_ENABLED: false, SERVICE_AUTH_MAX_ORGS_PER_USER: 2 });
      const dee = await someone();
      const [first] = await Promise.all([
        createJson(dee.cookie, 'First').expect(201),
        createJson(dee.cookie, 'Second').expect(201),
      ]);
      const refused = await createJson(dee.cookie, 'Third').expect(409);
      expect(refused.body).to.include({ code: 'too_many_organizations' });
      expect(refused.body.detail).to.contain('(2)');
      const page = await createForm(dee.cookie, 'Third by form').expect(409);
      expect(page.text).to.contain('You own as many organizations as one account may.');
      expect(await organizations()).to.equal(2);
      expect((await t.auth.orgs.listFor(dee.id)).map((org) => org.name)).to.have.members(['First', 'Second']);
      // A membership without an owner role is not owned; deleting an owned one frees a place.
      const other = await t.auth.orgs.create({ name: 'Theirs', owner: (await someone()).id });
      await t.auth.orgs.addMember(other.id, dee.id, ['member']);
      await createJson(dee.cookie, 'Third').expect(409);
      await t.auth.orgs.delete(first.body.org.id);
      await createJson(dee.cookie, 'Third').expect(201);
    });

    it('holds under concurrent creations: of 6 at once with the bound at 2, exactly 2 are created', async () => {
      await start({ SERVICE_AUTH_RATE_LIMIT_ENABLED: false, SERVICE_AUTH_MAX_ORGS_PER_USER: 2 });
      const eve = await someone();
      const answers = await Promise.all([1, 2, 3, 4, 5, 6].map((n) => createJson(eve.cookie, `Rush ${n}`)));
      expect(answers.map((answer) => answer.status).sort()).to.deep.equal([201, 201, 409, 409, 409, 409]);
      expect(await organizations()).to.equal(2);
    });

    it('bounds the library and the CLI’s service too', async () => {
      await start({ SERVICE_AUTH_RATE_LIMIT_ENABLED: false, SERVICE_AUTH_MAX_ORGS_PER_USER: 1 });
      const fay = await someone();
      await t.auth.orgs.create({ name: 'Only', owner: fay.id });
      const error = await t.auth.orgs.create({ name: 'Another', owner: fay.id }).then(
        () => null,
        (caught: unknown) => caught,
      );
      expect(error).to.include({ code: 'too_many_organizations', status: 409 });
    });
  });
});
