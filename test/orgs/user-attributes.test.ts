/**
 * User attributes in organization roles and scopes (CONTRACT-3 §21 with §20 and §25a), through
 * the real app: `orgRequired` loads the values when the membership's roles name one (a resolver
 * that fails is 503 `attributes_unavailable`); `abilityFor`/`accessibleBy` with `{ org }` load them
 * themselves; a token's scope naming one is filled with its owner's values.
 */
import { expect } from 'chai';
import { subject } from '@casl/ability';
import type { Request } from 'express';
import request from 'supertest';
import { createTestApp, PASSWORD, sessionCookieFrom, type TestApp } from '../helpers/app.js';
import { knowOrgRoles } from './org-app.js';

describe('user attributes in organization roles and scopes', () => {
  let t: TestApp;
  const teams = new Map<string, string>([
    ['ada@example.com', 'red'],
    ['cyd@example.com', 'red'],
  ]);
  let failing = false;
  let slug: string;
  const cookies: Record<string, string> = {};
  const users: Record<string, { id: number; email: string }> = {};

  before(async () => {
    t = await createTestApp({ SERVICE_AUTH_RATE_LIMIT_ENABLED: false }, (app, auth) => routes(app, auth));
    knowOrgRoles(t);
    const { auth, app } = t;
    // ada and bob are members of Acme; cyd, with a global role that reads every board, makes a scoped token.
    for (const [name, roles] of [
      ['ada', []],
      ['bob', []],
      ['cyd', ['reader']],
    ] as const) {
      users[name] = await auth.users.create({ email: `${name}@example.com`, password: PASSWORD, roles: [...roles] });
      cookies[name] = sessionCookieFrom(
        await request(app)
          .post('/service-auth/login')
          .send({ email: `${name}@example.com`, password: PASSWORD })
          .expect(200),
      )!;
    }
    const org = await auth.orgs.create({ name: 'Acme', owner: users['ada']!.id });
    slug = org.slug;
    await auth.orgs.setMemberRoles(org.id, users['ada']!.id, ['owner', 'member']);
    await auth.orgs.addMember(org.id, users['bob']!.id, ['member']);
  });
  after(() => t.auth.close());

  function routes(app: TestApp['app'], auth: TestApp['auth']): void {
    auth.defineUserAttributes(['team'], (user) => {
      if (failing) throw new Error('directory down');
      return { team: teams.get(user.email) };
    });
    auth.defineOrgRole('member', [
      { action: 'read', subject: 'Organization' },
      { action: 'read', subject: 'Board', conditions: { team: '${user.team}' } },
    ]);
    auth.defineRole('reader', [{ action: 'read', subject: 'Board' }]);
    auth.defineScope(
      'team-boards',
      [{ action: 'read', subject: 'Board', conditions: { team: '${user.team}' } }],
      'Read your team’s boards',
    );
    const boards = new Map([
      [1, { id: 1, team: 'red' }],
      [2, { id: 2, team: 'blue' }],
    ]);
    const load = (req: Request) => {
      const board = boards.get(Number(req.params['id']));
      return board ? { ...board, org_id: req.org!.id } : null;
    };
    app.get(
      '/orgs/:org/boards/:id',
      auth.orgRequired(),
      auth.require({ action: 'read', subject: 'Board', load }),
      (_req, res) => res.json({ ok: true }),
    );
    app.get(
      '/boards/:id',
      auth.require({ action: 'read', subject: 'Board', load: (req) => boards.get(Number(req.params['id'])) ?? null }),
      (_req, res) => res.json({ ok: true }),
    );
  }

  it('decides in the organization with the user’s value; a member without it reads none', async () => {
    await request(t.app).get(`/orgs/${slug}/boards/1`).set('Cookie', cookies['ada']!).expect(200);
    await request(t.app).get(`/orgs/${slug}/boards/2`).set('Cookie', cookies['ada']!).expect(403);
    await request(t.app).get(`/orgs/${slug}/boards/1`).set('Cookie', cookies['bob']!).expect(403);
  });

  it('loads them for { org } in service code', async () => {
    const ada = { id: users['ada']!.id, email: 'ada@example.com' };
    const orgId = (await t.auth.orgs.find(slug))!.id;
    const ability = await t.auth.abilityFor(ada, { org: slug });
    expect(ability.can('read', subject('Board', { team: 'red', org_id: orgId }))).to.equal(true);
    expect(ability.can('read', subject('Board', { team: 'blue', org_id: orgId }))).to.equal(false);
    const filter = await t.auth.accessibleBy(ada, 'read', 'Board', { org: slug });
    expect(JSON.stringify(filter)).to.include('"team":"red"');
    expect((await t.auth.explain(ada, 'read', 'Board', { team: 'blue' }, { org: slug })).allowed).to.equal(false);
  });

  it('fills a token’s scope with its owner’s values', async () => {
    const created = await request(t.app)
      .post('/service-auth/api/tokens')
      .set('Cookie', cookies['cyd']!)
      .send({ name: 'boards', scopes: ['team-boards'] })
      .expect(201);
    const bearer = `Bearer ${created.body.token as string}`;
    await request(t.app).get('/boards/1').set('Authorization', bearer).expect(200);
    await request(t.app).get('/boards/2').set('Authorization', bearer).expect(403);
    // Without a token, cyd's global role reads every board.
    await request(t.app).get('/boards/2').set('Cookie', cookies['cyd']!).expect(200);
    const cyd = { id: users['cyd']!.id, email: 'cyd@example.com', roles: ['reader'] };
    expect(() => t.auth.abilityFor(cyd, { scopes: ['team-boards'] }), 'the scope names an attribute').to.throw(
      TypeError,
      /scopes of this token name user attributes/,
    );
    const loaded = await t.auth.loadUserAttributes(cyd);
    expect(
      t.auth.abilityFor(loaded, { scopes: ['team-boards'] }).can('read', subject('Board', { team: 'blue' })),
    ).to.equal(false);
    expect(
      t.auth.abilityFor(loaded, { scopes: ['team-boards'] }).can('read', subject('Board', { team: 'red' })),
    ).to.equal(true);
  });

  it('answers 503 attributes_unavailable from orgRequired when the resolver fails', async () => {
    await t.auth.invalidateUser(users['bob']!);
    failing = true;
    try {
      const answer = await request(t.app).get(`/orgs/${slug}/boards/1`).set('Cookie', cookies['bob']!).expect(503);
      expect(answer.body.code).to.equal('attributes_unavailable');
      expect(JSON.stringify(answer.body)).to.not.include('directory down');
      // The package's own routes in an organization decide with the ability there, which needs them too.
      expect(
        (await request(t.app).get(`/service-auth/api/orgs/${slug}`).set('Cookie', cookies['bob']!).expect(503)).body
          .code,
      ).to.equal('attributes_unavailable');
    } finally {
      failing = false;
    }
  });
});
