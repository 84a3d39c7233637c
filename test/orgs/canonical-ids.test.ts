/**
 * One organization, one URL per way of naming it: `/orgs/7` and `/orgs/<slug>`, never `/orgs/007`,
 * `/orgs/+7`, `/orgs/7.0` or `/orgs/%207` (spellings a cache, a log or an audit trail would count
 * as different organizations). A property over generated strings, in the JSON API and the pages:
 * a member's request for `/orgs/<s>` finds the organization exactly when `s` is its id as written
 * or its slug, and is 404 otherwise.
 */
import { expect } from 'chai';
import fc from 'fast-check';
import request from 'supertest';
import { isIdString } from '../../src/orgs/names.js';
import { PASSWORD, sessionCookieFrom, type TestApp } from '../helpers/app.js';
import { HTML } from '../helpers/forms.js';
import { orgApp } from './org-app.js';
import { defineDemoOrgRoles } from './org-roles.js';

const PREFIX = '/service-auth';

/** Other spellings of the number `id`, and strings near it. */
function spellingsOf(id: number): fc.Arbitrary<string> {
  const digits = String(id);
  return fc.oneof(
    fc.nat({ max: 3 }).map((zeros) => `${'0'.repeat(zeros + 1)}${digits}`),
    fc.constantFrom(
      `+${digits}`,
      `${digits}.0`,
      `${digits}.`,
      ` ${digits}`,
      `${digits} `,
      `${digits}\t`,
      `-${digits}`,
      `${digits}e0`,
      `0x${id.toString(16)}`,
      `${digits}n`,
      '0',
      '-0',
    ),
    // Full-width and Arabic-Indic digits look like digits to some parsers.
    fc.constant(digits.replace(/[0-9]/g, (d) => String.fromCharCode(0xff10 + Number(d)))),
    fc.constant(digits.replace(/[0-9]/g, (d) => String.fromCharCode(0x0660 + Number(d)))),
  );
}

/** Strings that can go into a path segment (escaped), and are not `.` or `..` (which a path resolves). */
function segments(id: number, slug: string): fc.Arbitrary<string> {
  return fc
    .oneof(
      spellingsOf(id),
      fc.string({ minLength: 1, maxLength: 20 }),
      fc.stringMatching(/^[0-9]{1,17}$/),
      fc.constantFrom(String(id), slug, slug.toUpperCase(), `${slug} `),
    )
    .filter((text) => text !== '' && text !== '.' && text !== '..' && escapable(text));
}

function escapable(text: string): boolean {
  try {
    encodeURIComponent(text);
    return true;
  } catch {
    return false; // a lone surrogate
  }
}

describe('organizations named in URLs: one spelling each', () => {
  let t: TestApp;
  let cookie: string;
  let org: { id: number; slug: string };

  before(async () => {
    t = await orgApp();
    defineDemoOrgRoles(t.auth);
    const email = 'canon@example.com';
    const user = await t.auth.users.create({ email, password: PASSWORD });
    cookie = sessionCookieFrom(
      await request(t.app).post(`${PREFIX}/login`).send({ email, password: PASSWORD }).expect(200),
    )!;
    // Some organizations of someone else's first, so that the one under test has an id of two digits.
    const other = await t.auth.users.create({ email: 'other@example.com', password: PASSWORD });
    for (let n = 0; n < 11; n++) await t.auth.orgs.create({ name: `Filler ${n}`, owner: other.id });
    org = await t.auth.orgs.create({ name: 'Canon', slug: 'canon', owner: user.id });
    expect(org.id).to.be.greaterThan(9);
  });
  after(() => t.auth.close());

  const names = (text: string) => text === String(org.id) || text === org.slug;

  it('names an organization by its id only as the id is written: not 007, +7, 7.0 or " 7"', () => {
    for (const spelling of ['007', '+7', '7.0', ' 7', '7 ', '0', '0007', '-7', '1e1'])
      expect(isIdString(spelling), spelling).to.equal(false);
    for (const id of ['7', '10', '999999999999999']) expect(isIdString(id), id).to.equal(true);
    expect(isIdString('1000000000000000'), 'more than 15 digits').to.equal(false);
  });

  it('JSON API: GET /api/orgs/<s> is 200 exactly for the id as written and the slug, else 404 not_found', async () => {
    await fc.assert(
      fc.asyncProperty(segments(org.id, org.slug), async (text) => {
        const response = await request(t.app)
          .get(`${PREFIX}/api/orgs/${encodeURIComponent(text)}`)
          .set('Cookie', cookie)
          .set('Accept', 'application/json');
        if (names(text)) {
          expect(response.status, text).to.equal(200);
          expect(response.body.org.id).to.equal(org.id);
        } else {
          expect(response.status, JSON.stringify(text)).to.equal(404);
          expect(response.body.code).to.equal('not_found');
        }
      }),
      { numRuns: 150, examples: [['007'], [`0${org.id}`], [`+${org.id}`], [`${org.id}.0`], [` ${org.id}`]] },
    );
  });

  it('pages: /orgs/<s> shows the organization exactly for the id as written and the slug, else the 404 page', async () => {
    await fc.assert(
      fc.asyncProperty(fc.oneof(spellingsOf(org.id), fc.constantFrom(String(org.id), org.slug)), async (text) => {
        const response = await request(t.app)
          .get(`${PREFIX}/orgs/${encodeURIComponent(text)}`)
          .set('Cookie', cookie)
          .set('Accept', HTML);
        expect(response.status, JSON.stringify(text)).to.equal(names(text) ? 200 : 404);
        if (names(text)) expect(response.text).to.contain('Canon');
      }),
      { numRuns: 30, examples: [[`00${org.id}`], [`${org.id}.0`]] },
    );
  });
});
