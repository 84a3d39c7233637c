import { expect } from 'chai';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import request from 'supertest';
import { createTestApp, PASSWORD, sessionCookieFrom, type TestApp } from '../helpers/app.js';

const ann = { id: 7, email: 'ann@example.com', is_admin: false, roles: ['analyst'] };

describe('auth.explain', () => {
  let t: TestApp;
  let dir: string;
  let file: string;
  before(async () => {
    t = await createTestApp();
    dir = await mkdtemp(join(tmpdir(), 'service-auth-explain-'));
    file = join(dir, 'roles.json');
    await writeFile(
      file,
      JSON.stringify({
        viewer: [{ action: 'read', subject: 'Report', conditions: { team: 'north' } }],
        analyst: {
          includes: ['viewer'],
          rules: [
            { action: 'read', subject: 'Report', fields: ['title'] },
            {
              action: 'read',
              subject: 'Report',
              inverted: true,
              conditions: { secret: true },
              reason: 'Secret reports are for the board',
            },
            { action: 'update', subject: 'Note', conditions: { owner_id: '${user.id}' } },
          ],
        },
      }),
    );
    t.auth.loadPolicies(file);
    t.auth.definePolicy('is_self', (user, { user_id }) => user.id === user_id);
  });
  after(async () => {
    await t.auth.close();
    await rm(dir, { recursive: true, force: true });
  });

  it('names the rule that allowed, with the role that defined it and its file', () => {
    // For the field "body", the analyst's own rule (title only) does not apply: the included role's does.
    expect(t.auth.explain(ann, 'read', 'Report', { team: 'north' }, 'body')).to.deep.equal({
      allowed: true,
      rule: {
        role: 'viewer',
        index: 1,
        action: 'read',
        subject: 'Report',
        conditions: { team: 'north' },
        inverted: false,
        source: file,
      },
    });
  });

  it('names the inverted rule that refused, with its reason', () => {
    const refusing = {
      role: 'analyst',
      index: 2,
      action: 'read',
      subject: 'Report',
      conditions: { secret: true },
      inverted: true,
      reason: 'Secret reports are for the board',
      source: file,
    };
    const explanation = t.auth.explain(ann, 'read', 'Report', { team: 'north', secret: true });
    expect(explanation).to.deep.include({ allowed: false, rule: refusing });
    // Why not: both allowing rules matched, and the inverted rule refused.
    expect(explanation.why_not!.map(({ rule, refused_by }) => [rule.role, rule.index, refused_by])).to.deep.equal([
      ['viewer', 1, refusing],
      ['analyst', 1, refusing],
    ]);
  });

  it('answers null when no rule applies: denied by default', () => {
    // `update` is named (for Note), not for Report: no rule could allow it, so why_not is empty.
    expect(t.auth.explain(ann, 'update', 'Report', { team: 'north' })).to.deep.equal({
      allowed: false,
      rule: null,
      why_not: [],
    });
    expect(t.auth.explain({ ...ann, roles: [] }, 'read', 'Report', { team: 'north' })).to.deep.equal({
      allowed: false,
      rule: null,
      why_not: [],
    });
  });

  it('shows the rule as it applied to this user: placeholders filled in', () => {
    const explanation = t.auth.explain(ann, 'update', 'Note', { owner_id: 7 });
    expect(explanation.allowed).to.equal(true);
    expect(explanation.rule)
      .to.include({ role: 'analyst' })
      .and.to.deep.include({ conditions: { owner_id: 7 } });
    expect(t.auth.explain(ann, 'update', 'Note', { owner_id: 8 })).to.deep.include({ allowed: false, rule: null });
  });

  it('asks about one field when given one; without one, a rule that limits the fields decides', () => {
    expect(t.auth.explain(ann, 'read', 'Report', { team: 'north' }).rule).to.deep.include({
      role: 'analyst',
      fields: ['title'],
    });
    expect(t.auth.explain(ann, 'read', 'Report', { team: 'south' }, 'title').rule).to.deep.include({
      role: 'analyst',
      fields: ['title'],
    });
    expect(t.auth.explain(ann, 'read', 'Report', { team: 'south' }, 'body')).to.deep.include({
      allowed: false,
      rule: null,
    });
  });

  it('denies, as the guards do, when a condition names a field the context lacks', () => {
    expect(t.auth.explain(ann, 'update', 'Note', {})).to.deep.include({ allowed: false });
  });

  it('names the policy for a policy subject, with no rule', () => {
    expect(t.auth.explain(ann, 'satisfy', 'is_self', { user_id: 7 })).to.deep.equal({
      allowed: true,
      rule: null,
      policy: 'is_self',
    });
    expect(t.auth.explain(ann, 'satisfy', 'is_self', { user_id: 8 })).to.deep.equal({
      allowed: false,
      rule: null,
      policy: 'is_self',
    });
  });

  it('shows rules defined in code without a source', () => {
    t.auth.defineRole('coder', [{ action: 'read', subject: 'Log' }]);
    expect(t.auth.explain({ ...ann, roles: ['coder'] }, 'read', 'Log').rule).to.deep.equal({
      role: 'coder',
      index: 1,
      action: 'read',
      subject: 'Log',
      inverted: false,
    });
  });
});

describe("a guard's 403", () => {
  let t: TestApp;
  let cookie: string;
  before(async () => {
    t = await createTestApp({ SERVICE_AUTH_RATE_LIMIT_ENABLED: false }, (app, auth) => {
      auth.defineRole('analyst', [
        { action: 'read', subject: 'Report' },
        {
          action: 'read',
          subject: 'Report',
          inverted: true,
          conditions: { team: 'board' },
          reason: 'Board reports are for the board',
        },
      ]);
      app.get('/reports/:team', auth.require({ action: 'read', subject: 'Report' }), (_req, res) =>
        res.json({ ok: true }),
      );
      app.get('/ops', auth.rolesRequired('operator', 'analyst'), (_req, res) => res.json({ ok: true }));
      app.get('/desk', auth.rolesAccepted('operator', 'support'), (_req, res) => res.json({ ok: true }));
      app.get('/notes/:id', auth.require({ action: 'update', subject: 'Note' }), (_req, res) => res.json({ ok: true }));
    });
    await t.auth.users.create({ email: 'ann@example.com', password: PASSWORD, roles: ['analyst'] });
    cookie = sessionCookieFrom(
      await request(t.app)
        .post('/service-auth/login')
        .send({ email: 'ann@example.com', password: PASSWORD })
        .expect(200),
    )!;
  });
  after(() => t.auth.close());

  const get = (path: string) => request(t.app).get(path).set('Cookie', cookie);

  it("says the deciding rule's reason when it has one", async () => {
    await get('/reports/north').expect(200);
    expect((await get('/reports/board').expect(403)).body.detail).to.equal('Board reports are for the board');
  });

  it('otherwise says nothing about role names', async () => {
    for (const path of ['/ops', '/desk', '/notes/1']) {
      const { detail } = (await get(path).expect(403)).body as { detail: string };
      for (const role of ['operator', 'support', 'analyst']) expect(detail, path).not.to.contain(role);
    }
  });
});
