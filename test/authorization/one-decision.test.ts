/**
 * The cases of issue 40 where the doors of the engine disagreed, each kept as it was reproduced:
 * a granting rule naming a field the object lacks no longer hides a lower grant (the guards,
 * `can`, `explain`, policy tests and diff agree), user attributes stay monotone, and values of
 * another type never match. docs/authorization.md, "How a rule applies".
 */
import { expect } from 'chai';
import { subject } from '@casl/ability';
import express from 'express';
import request from 'supertest';
import { rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { createTestApp, PASSWORD, sessionCookieFrom, temporaryDirectory, type TestApp } from '../helpers/app.js';
import { conditionsMatcher } from '../../src/authorization/conditions.js';
import { createClientAbility } from '../../src/client/index.js';

const REPORTS: Record<string, Record<string, unknown>> = {
  north: { team: 'north' },
  'north-archived': { team: 'north', archived: true },
  south: { team: 'south', archived: false },
  'south-archived': { team: 'south', archived: true },
};
const ANALYST = [
  { action: 'read', subject: 'Report', conditions: { team: 'north' } },
  { action: 'read', subject: 'Report', conditions: { archived: { $ne: true } } },
];

describe('one decision everywhere (issue 40)', () => {
  let t: TestApp;
  let cookie: string;
  let analyst: { id: number; email: string; is_admin: boolean; roles: string[] };
  const teams = new Map<string, Record<string, unknown>>();

  before(async () => {
    t = await createTestApp({ SERVICE_AUTH_RATE_LIMIT_ENABLED: false }, (app, auth) => {
      auth.defineUserAttributes(['team'], async (user) => teams.get(user.email) ?? {});
      auth.defineRole('analyst', ANALYST);
      auth.defineRole('yearly', [
        { action: 'read', subject: 'Report', conditions: { year: 2026 } },
        { action: 'read', subject: 'Report', conditions: { team: { $ne: '${user.team}' } } },
      ]);
      app.use(express.json());
      app.get(
        '/reports/:name',
        auth.require({ action: 'read', subject: 'Report', load: (req) => REPORTS[String(req.params['name'])] ?? null }),
        (_req, res) => res.json({ ok: true }),
      );
    });
    const user = await t.auth.users.create({ email: 'ann@example.com', password: PASSWORD, roles: ['analyst'] });
    analyst = { id: user.id, email: user.email, is_admin: false, roles: ['analyst'] };
    cookie = sessionCookieFrom(
      await request(t.app)
        .post('/service-auth/login')
        .send({ email: 'ann@example.com', password: PASSWORD })
        .expect(200),
    )!;
  });
  after(() => t.auth.close());

  it('a shadowing grant: GET /reports/north behind require answers 200, as can, explain, policy tests and diff say', async () => {
    const status = async (name: string) => (await request(t.app).get(`/reports/${name}`).set('Cookie', cookie)).status;
    expect(await status('north'), 'the second rule names archived, which the report lacks: the first decides').to.equal(
      200,
    );
    expect(await status('north-archived')).to.equal(200);
    expect(await status('south')).to.equal(200);
    expect(await status('south-archived')).to.equal(403);
    const ability = t.auth.abilityFor(analyst);
    for (const [name, fields] of Object.entries(REPORTS)) {
      expect(ability.can('read', subject('Report', { ...fields })), name).to.equal(name !== 'south-archived');
    }
    const explained = await t.auth.explain(analyst, 'read', 'Report', { team: 'north' });
    expect(explained.allowed).to.equal(true);
    expect(explained.rule).to.include({ role: 'analyst', index: 1, inverted: false });
    const report = t.auth.testPolicies({
      principals: { ann: { roles: ['analyst'] } },
      tests: [
        { principal: 'ann', action: 'read', subject: 'Report', fields: { team: 'north' }, allowed: true },
        {
          principal: 'ann',
          action: 'read',
          subject: 'Report',
          fields: { team: 'south', archived: true },
          allowed: false,
        },
      ],
    });
    expect(report.results.map((result) => result.passed)).to.deep.equal([true, true]);
    // Adding the second rule only grants (it never hides the first): diff says so, and each witness is what the guard answers.
    const { changes } = t.auth.policies.diff(
      { roles: { analyst: ANALYST.slice(0, 1) } },
      { roles: { analyst: ANALYST } },
    );
    expect(changes.map((change) => `${change.change} ${change.action} ${change.subject}`)).to.deep.equal([
      'grant read Report',
    ]);
    expect(ability.can('read', subject('Report', structuredClone(changes[0]!.witness.subject)))).to.equal(true);
  });

  it('GET /api/abilities: createClientAbility decides each report as the guard does, the shadowing grant included', async () => {
    const { body } = await request(t.app).get('/service-auth/api/abilities').set('Cookie', cookie).expect(200);
    const client = createClientAbility(body.rules);
    for (const [name, fields] of Object.entries(REPORTS)) {
      const guard = (await request(t.app).get(`/reports/${name}`).set('Cookie', cookie)).status === 200;
      expect(client.can('read', subject('Report', { ...fields })), name).to.equal(guard);
    }
  });

  it('a missing user attribute or a present one: whatever a user without it may do, a user with it may do too', async () => {
    const yearly = async (email: string, team?: string) => {
      if (team) teams.set(email, { team });
      const user = await t.auth.users.create({ email, password: PASSWORD, roles: ['yearly'] });
      return t.auth.abilityFor(await t.auth.loadUserAttributes(user));
    };
    const [none, red] = await Promise.all([yearly('none@example.com'), yearly('red@example.com', 'red')]);
    for (const fields of [
      { year: 2026 },
      { year: 2026, team: 'red' },
      { year: 2026, team: 'blue' },
      { year: 2025, team: 'blue' },
    ]) {
      const report = () => subject('Report', { ...fields });
      if (none.can('read', report())) expect(red.can('read', report()), JSON.stringify(fields)).to.equal(true);
    }
    expect(
      red.can('read', subject('Report', { year: 2026 })),
      'no team on the report: the $ne rule does not apply',
    ).to.equal(true);
    expect(red.can('read', subject('Report', { year: 2025, team: 'red' }))).to.equal(false);
  });

  it('compares strictly by type: no coercion in equality, $in or order; null is equal to null only and not ordered', () => {
    const matches = (conditions: object, object: object) => conditionsMatcher(conditions as never)(object);
    expect(matches({ score: '1' }, { score: 1 })).to.equal(false);
    expect(matches({ score: { $ne: '1' } }, { score: 1 }), 'a value of another type: the rule does not apply').to.equal(
      false,
    );
    expect(matches({ flag: 'true' }, { flag: true })).to.equal(false);
    expect(matches({ id: { $in: ['1', '5'] } }, { id: 1 })).to.equal(false);
    expect(matches({ id: { $in: [1, 5] } }, { id: 1 })).to.equal(true);
    expect(matches({ score: { $lt: 5 } }, { score: '1' })).to.equal(false);
    expect(matches({ score: { $lt: 5 } }, { score: true })).to.equal(false);
    expect(matches({ score: { $lt: 5 } }, { score: null })).to.equal(false);
    expect(matches({ score: { $not: { $lt: 5 } } }, { score: null })).to.equal(true);
    expect(matches({ at: { $lt: new Date(2) } }, { at: new Date(1) })).to.equal(true);
    expect(matches({ at: new Date(1) }, { at: new Date(1) }), 'dates by their time').to.equal(true);
    expect(matches({ team: null }, { team: null })).to.equal(true);
    expect(matches({ team: null }, {}), 'a missing field is not null').to.equal(false);
    expect(matches({ team: { $exists: false } }, {}), '$exists asks for no field').to.equal(true);
  });

  it('never throws on data: a null inside a to-many path', () => {
    const rule = conditionsMatcher({ 'project.members.person.team': 'red' } as never);
    expect(rule({ project: { members: [{ person: null }, { person: { team: 'red' } }] } })).to.equal(true);
    expect(rule({ project: { members: [null, { person: { team: 'blue' } }] } })).to.equal(false);
    expect(rule({ project: null })).to.equal(false);
    const inElements = conditionsMatcher({ members: { $elemMatch: { team: 'red' } } } as never);
    expect(inElements({ members: [null, { team: 'red' }] })).to.equal(true);
    expect(inElements({ members: [{}, { team: 'blue' }] })).to.equal(false);
    const ordered = conditionsMatcher({ members: { $elemMatch: { score: { $lt: 5 } } } } as never);
    expect(ordered({ members: [null, { score: 3 }] })).to.equal(true);
    expect(ordered({ members: [null, { score: '3' }] }), 'an element of another type').to.equal(false);
  });
});

describe('placeholders outside user.* and org.* (issue 39)', () => {
  let t: TestApp;
  before(async () => {
    t = await createTestApp();
  });
  after(() => t.auth.close());

  it('is a TypeError naming it when the role, organization role or scope is defined, or a rule file read', async () => {
    const rules = [{ action: 'read', subject: 'Doc', conditions: { team: '${member.team}' } }];
    expect(() => t.auth.defineRole('r', rules)).to.throw(
      TypeError,
      /role "r", rule 1: "conditions": unknown placeholder \$\{member\.team\}/,
    );
    expect(() => t.auth.defineOrgRole('o', rules)).to.throw(TypeError, /unknown placeholder \$\{member\.team\}/);
    expect(() => t.auth.defineScope('docs:read', rules, 'Read the docs')).to.throw(
      TypeError,
      /unknown placeholder \$\{member\.team\}/,
    );
    expect(() =>
      t.auth.defineRole('r', [{ action: 'read', subject: 'Doc', conditions: { team: 'x-${team}' } }]),
    ).to.throw(TypeError, /unknown placeholder \$\{team\}/);
    const dir = await temporaryDirectory();
    await writeFile(join(dir, 'roles.json'), JSON.stringify({ roles: { r: rules } }));
    expect(() => t.auth.loadPolicies(dir)).to.throw(TypeError, /unknown placeholder \$\{member\.team\}/);
    await rm(dir, { recursive: true, force: true });
  });
});
