/**
 * The application's own user attributes in rules (CONTRACT-3 §21), through the real Express app on
 * SQLite in memory: `${user.team}` names only a declared attribute; the guards read the values
 * once per user (the resolver counted) and decide with them; a value the resolver leaves out denies
 * (a grant naming it is dropped, a refusal naming it refuses everything it covers); a resolver that
 * throws is 503 `attributes_unavailable` from the guards that need the ability, nothing of its
 * message in the answer, and `loginRequired` still passes (its `req.ability` without values, which
 * deny); every guard loads them, so `req.ability` works after any; service code loads them or is told to.
 */
import { expect } from 'chai';
import express, { type Request } from 'express';
import request from 'supertest';
import { createTestApp, PASSWORD, sessionCookieFrom, type TestApp } from '../helpers/app.js';

interface Doc {
  id: number;
  team?: string | null;
  department?: string;
}

const DOCS = new Map<number, Doc>([
  [1, { id: 1, team: 'red', department: 'ops' }],
  [2, { id: 2, team: 'blue', department: 'ops' }],
  [3, { id: 3, team: null, department: 'sales' }],
  [4, { id: 4, department: 'sales' }],
]);

describe('user attributes in rules', () => {
  let t: TestApp;
  /** What the resolver gives, by email; a user missing here has no attributes. */
  const values = new Map<string, Record<string, unknown>>();
  const resolved: string[] = [];
  let failing = false;
  const cookies: Record<string, string> = {};
  const ids: Record<string, number> = {};

  before(async () => {
    t = await createTestApp({ SERVICE_AUTH_RATE_LIMIT_ENABLED: false }, (app, auth) => {
      auth.defineUserAttributes(['team', 'department']);
      auth.defineRole('teammate', [
        { action: 'read', subject: 'Doc', conditions: { team: '${user.team}' } },
        { action: 'update', subject: 'Doc' },
        {
          action: 'update',
          subject: 'Doc',
          inverted: true,
          conditions: { department: { $ne: '${user.department}' } },
          reason: 'Only your department’s documents',
        },
      ]);
      const load = (req: Request) => DOCS.get(Number(req.params['id'])) ?? null;
      app.use(express.json());
      app.get('/docs/:id', auth.require({ action: 'read', subject: 'Doc', load }), (_req, res) =>
        res.json({ ok: true }),
      );
      app.patch('/docs/:id', auth.require({ action: 'update', subject: 'Doc', load }), (_req, res) =>
        res.json({ ok: true }),
      );
      app.get('/me', auth.loginRequired, (req, res) => res.json({ id: req.user!.id }));
      app.get('/mine', auth.loginRequired, async (req, res) => {
        await auth.loadUserAttributes(req);
        res.json({ red: req.ability!.can('read', { __caslSubjectType__: 'Doc', team: 'red' } as never) });
      });
      app.get('/unloaded', auth.loginRequired, (req, res) => res.json({ can: req.ability!.can('read', 'Doc') }));
      app.get('/red', auth.loginRequired, (req, res) =>
        res.json({ red: req.ability!.can('read', { __caslSubjectType__: 'Doc', team: 'red' } as never) }),
      );
    });
    t.auth.defineUserAttributes([], async (user) => {
      resolved.push(user.email);
      if (failing) throw new Error('directory down: secret-host.internal:389');
      return values.get(user.email) ?? {};
    });
    for (const name of ['ada', 'bob', 'cyd']) {
      const user = await t.auth.users.create({ email: `${name}@example.com`, password: PASSWORD, roles: ['teammate'] });
      ids[name] = user.id;
      cookies[name] = sessionCookieFrom(
        await request(t.app)
          .post('/service-auth/login')
          .send({ email: `${name}@example.com`, password: PASSWORD })
          .expect(200),
      )!;
    }
    values.set('ada@example.com', { team: 'red', department: 'ops' });
    values.set('bob@example.com', { team: 'blue' });
    // cyd: the resolver gives nothing.
  });
  after(() => t.auth.close());

  const get = (who: string, path: string) => request(t.app).get(path).set('Cookie', cookies[who]!);
  const patch = (who: string, path: string) => request(t.app).patch(path).set('Cookie', cookies[who]!).send({});

  it('refuses a placeholder that is neither the package’s nor declared, naming it, and accepts it once declared', () => {
    expect(() =>
      t.auth.defineRole('typo', [{ action: 'read', subject: 'Doc', conditions: { team: '${user.teem}' } }]),
    ).to.throw(
      TypeError,
      /role "typo", rule 1: "conditions": unknown placeholder \$\{user\.teem\}.*\$\{user\.team\}.*defineUserAttributes\(\["teem"\]/,
    );
    expect(() =>
      t.auth.defineOrgRole('typo', [{ action: 'read', subject: 'Doc', conditions: { team: '${user.teem}' } }]),
    ).to.throw(TypeError, /unknown placeholder \$\{user\.teem\}/);
    expect(() =>
      t.auth.defineScope('typo', [{ action: 'read', subject: 'Doc', conditions: { team: '${user.teem}' } }], 'Typo'),
    ).to.throw(TypeError, /unknown placeholder \$\{user\.teem\}/);
    expect(() => t.auth.defineUserAttributes(['id'])).to.throw(TypeError, /the package's own \$\{user\.id\}/);
    expect(() => t.auth.defineUserAttributes(['a-b'])).to.throw(TypeError, /not an attribute name/);
  });

  it('decides with the user’s value, read once for many requests', async () => {
    resolved.length = 0;
    await get('ada', '/docs/1').expect(200);
    expect((await get('ada', '/docs/2').expect(403)).body.code).to.equal('forbidden');
    await get('ada', '/docs/3').expect(403);
    await get('ada', '/docs/4').expect(403);
    await get('bob', '/docs/2').expect(200);
    await get('bob', '/docs/1').expect(403);
    expect(resolved, 'once per user').to.deep.equal(['ada@example.com', 'bob@example.com']);
  });

  it('denies a condition on a value the resolver leaves out: never the rows whose field is missing or null', async () => {
    for (const id of [1, 2, 3, 4])
      expect((await get('cyd', `/docs/${id}`).expect(403)).body.code).to.equal('forbidden');
  });

  it('makes an inverted rule on a missing value refuse everything it covers, with its reason', async () => {
    await patch('ada', '/docs/1').expect(200);
    expect((await patch('ada', '/docs/3').expect(403)).body.detail).to.equal('Only your department’s documents');
    // bob has a team and no department: his refusal holds on every document, his own team's too.
    for (const id of [1, 2, 3])
      expect((await patch('bob', `/docs/${id}`).expect(403)).body.detail).to.equal('Only your department’s documents');
  });

  it('answers 503 attributes_unavailable when the resolver throws, telling nothing of why; loginRequired still passes', async () => {
    await t.auth.invalidateUser(ids['ada']!);
    failing = true;
    try {
      const answer = await get('ada', '/docs/1').expect(503);
      expect(answer.body).to.include({ code: 'attributes_unavailable', status: 503 });
      expect(JSON.stringify(answer.body)).to.not.match(/secret-host|directory down/);
      expect(t.log.text()).to.match(/attributes of user \d+ could not be read.*directory down/s);
      await get('ada', '/me').expect(200);
      // req.ability after loginRequired alone: built with no values, which deny what names them; never a 500.
      expect((await get('ada', '/unloaded').expect(200)).body).to.deep.equal({ can: false });
      expect((await get('ada', '/red').expect(200)).body).to.deep.equal({ red: false });
    } finally {
      failing = false;
    }
    await get('ada', '/docs/1').expect(200);
  });

  it('reads the values again after invalidateUser', async () => {
    await get('bob', '/docs/2').expect(200);
    values.set('bob@example.com', { team: 'red' });
    await get('bob', '/docs/2').expect(200);
    await t.auth.invalidateUser({ id: ids['bob']!, email: 'bob@example.com' });
    await get('bob', '/docs/2').expect(403);
    await get('bob', '/docs/1').expect(200);
  });

  it('asks service code to load them: a sync question without them is a TypeError saying how', async () => {
    const ada = { id: ids['ada']!, email: 'ada@example.com', roles: ['teammate'] };
    expect(() => t.auth.abilityFor(ada)).to.throw(TypeError, /not loaded.*loadUserAttributes/);
    expect(() => t.auth.accessibleBy(ada, 'read', 'Doc')).to.throw(TypeError, /loadUserAttributes/);
    const loaded = await t.auth.loadUserAttributes(ada);
    expect(loaded.attributes).to.deep.equal({ team: 'red', department: 'ops' });
    expect(t.auth.accessibleBy(loaded, 'read', 'Doc')).to.deep.equal({ team: 'red' });
    expect(t.auth.explain(loaded, 'read', 'Doc', { team: 'red' }).allowed).to.equal(true);
    // Values given by service code (a script, a test) serve as loaded ones.
    expect(
      t.auth
        .abilityFor({ ...ada, attributes: { team: 'blue' } })
        .can('read', { __caslSubjectType__: 'Doc', team: 'blue' } as never),
    ).to.equal(true);
    expect(() => t.auth.abilityFor({ ...ada, attributes: { team: { $ne: null } } })).to.throw(
      TypeError,
      /"team" must be a string, a finite number, a boolean/,
    );
  });

  it('gives req.ability its values after any guard, loginRequired included (it loads them; loadUserAttributes(req) still works)', async () => {
    expect((await get('ada', '/mine').expect(200)).body).to.deep.equal({ red: true });
    expect((await get('ada', '/red').expect(200)).body).to.deep.equal({ red: true });
    expect((await get('cyd', '/red').expect(200)).body).to.deep.equal({ red: false });
    expect((await get('ada', '/unloaded').expect(200)).body).to.deep.equal({ can: true });
    expect(t.log.text()).to.not.match(/not loaded for user \d+/);
  });

  it('fills the rules of GET /api/abilities with the user’s values', async () => {
    const { rules } = (await get('ada', '/service-auth/api/abilities').expect(200)).body as {
      rules: { action: string; conditions?: object }[];
    };
    expect(rules.find((rule) => rule.action === 'read')).to.deep.include({ conditions: { team: 'red' } });
    const cyd = (await get('cyd', '/service-auth/api/abilities').expect(200)).body as {
      rules: { action: string; inverted?: boolean; conditions?: object }[];
    };
    expect(
      cyd.rules.filter((rule) => rule.action === 'read'),
      'no grant on a missing value',
    ).to.deep.equal([]);
    expect(cyd.rules.find((rule) => rule.inverted)).to.not.have.property('conditions');
  });
});
