import { expect } from 'chai';
import { subject } from '@casl/ability';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import request from 'supertest';
import { createTestApp, PASSWORD, type TestApp } from '../helpers/app.js';

const principal = (...roles: string[]) => ({ id: 7, email: 'ada@example.com', is_admin: false, roles });

describe('role inheritance', () => {
  let t: TestApp;
  beforeEach(async () => {
    t = await createTestApp();
  });
  afterEach(() => t.auth.close());

  it('gives a role the rules of the roles it includes, transitively', () => {
    t.auth.defineRole('viewer', [{ action: 'read', subject: 'Report' }]);
    t.auth.defineRole('editor', [{ action: 'update', subject: 'Report' }], { includes: ['viewer'] });
    t.auth.defineRole('chief', [{ action: 'delete', subject: 'Report' }], { includes: ['editor'] });
    const chief = t.auth.abilityFor(principal('chief'));
    expect(['read', 'update', 'delete'].map((action) => chief.can(action, 'Report'))).to.deep.equal([true, true, true]);
    const editor = t.auth.abilityFor(principal('editor'));
    expect(['read', 'update', 'delete'].map((action) => editor.can(action, 'Report'))).to.deep.equal([
      true,
      true,
      false,
    ]);
  });

  it("puts the included roles' rules first, so that the including role's inverted rule takes away what they grant", () => {
    t.auth.defineRole('viewer', [{ action: 'read', subject: 'Report' }]);
    t.auth.defineRole('intern', [{ action: 'read', subject: 'Report', inverted: true, conditions: { secret: true } }], {
      includes: ['viewer'],
    });
    const ability = t.auth.abilityFor(principal('intern'));
    expect(ability.can('read', subject('Report', { secret: false }))).to.equal(true);
    expect(ability.can('read', subject('Report', { secret: true }))).to.equal(false);
  });

  it('refuses a definition that closes a cycle, naming it, and keeps the roles as they were', () => {
    t.auth.defineRole('a', [{ action: 'read', subject: 'A' }]);
    t.auth.defineRole('b', [{ action: 'read', subject: 'B' }], { includes: ['a'] });
    t.auth.defineRole('c', [{ action: 'read', subject: 'C' }], { includes: ['b'] });
    expect(() => t.auth.defineRole('a', [], { includes: ['b'] })).to.throw(
      TypeError,
      'role "a" would include itself: a -> b -> a',
    );
    expect(() => t.auth.defineRole('a', [], { includes: ['c'] })).to.throw(TypeError, 'a -> c -> b -> a');
    expect(() => t.auth.defineRole('self', [], { includes: ['self'] })).to.throw(TypeError, 'self -> self');
    expect(t.auth.abilityFor(principal('a')).can('read', 'A')).to.equal(true);
  });

  it('lets an included role that is never defined grant nothing, and count once it is', () => {
    t.auth.defineRole('editor', [{ action: 'update', subject: 'Report' }], { includes: ['ghost'] });
    expect(t.auth.abilityFor(principal('editor')).can('read', 'Report')).to.equal(false);
    t.auth.defineRole('ghost', [{ action: 'read', subject: 'Report' }]);
    expect(t.auth.abilityFor(principal('editor')).can('read', 'Report')).to.equal(true);
  });

  it('rejects includes that are not a list of role names', () => {
    expect(() => t.auth.defineRole('x', [], { includes: 'viewer' as never })).to.throw(
      TypeError,
      /"includes" must be a list of role names/,
    );
    expect(() => t.auth.defineRole('x', [], { includes: [''] })).to.throw(TypeError, /"includes"/);
  });

  describe('in JSON rule files', () => {
    let dir: string;
    beforeEach(async () => {
      dir = await mkdtemp(join(tmpdir(), 'service-auth-roles-'));
    });
    afterEach(() => rm(dir, { recursive: true, force: true }));

    it('reads { "includes": [...], "rules": [...] } beside the plain list form', async () => {
      await writeFile(
        join(dir, 'roles.json'),
        JSON.stringify({
          viewer: [{ action: 'read', subject: 'Report' }],
          editor: { includes: ['viewer'], rules: [{ action: 'update', subject: 'Report' }] },
          auditor: { includes: ['viewer'] },
        }),
      );
      expect(t.auth.loadPolicies(dir)).to.deep.equal(['viewer', 'editor', 'auditor']);
      expect(t.auth.abilityFor(principal('editor')).can('read', 'Report')).to.equal(true);
      expect(t.auth.abilityFor(principal('auditor')).can('read', 'Report')).to.equal(true);
      expect(t.auth.abilityFor(principal('auditor')).can('update', 'Report')).to.equal(false);
    });

    it('names the file and the cycle, or the unknown key', async () => {
      const file = join(dir, 'cycle.json');
      await writeFile(file, JSON.stringify({ a: { includes: ['b'] }, b: { includes: ['a'] } }));
      expect(() => t.auth.loadPolicies(file)).to.throw(
        TypeError,
        `${file}: role "b" would include itself: b -> a -> b`,
      );
      await writeFile(file, JSON.stringify({ a: { include: ['b'], rules: [] } }));
      expect(() => t.auth.loadPolicies(file)).to.throw(TypeError, `${file}: $.a: Unrecognized key: "include"`);
    });
  });
});

describe('SERVICE_AUTH_DEFAULT_ROLES', () => {
  it('gives every user who registers over HTTP the default roles, creating them', async () => {
    const t = await createTestApp({
      SERVICE_AUTH_DEFAULT_ROLES: 'member, reader',
      SERVICE_AUTH_RATE_LIMIT_ENABLED: false,
    });
    try {
      const response = await request(t.app)
        .post('/service-auth/register')
        .send({ email: 'ada@example.com', password: PASSWORD })
        .expect(201);
      expect(response.body.user.roles).to.deep.equal(['member', 'reader']);
      expect((await t.auth.roles.list()).map((role) => role.name)).to.deep.equal(['member', 'reader']);
      // Users made from code or the CLI get only what they are given.
      expect((await t.auth.users.create({ email: 'bob@example.com', password: PASSWORD })).roles.size).to.equal(0);
    } finally {
      await t.auth.close();
    }
  });

  it('gives none by default, and refuses a value that is not a list of role names', async () => {
    const t = await createTestApp({ SERVICE_AUTH_RATE_LIMIT_ENABLED: false });
    try {
      const response = await request(t.app)
        .post('/service-auth/register')
        .send({ email: 'ada@example.com', password: PASSWORD })
        .expect(201);
      expect(response.body.user.roles).to.deep.equal([]);
    } finally {
      await t.auth.close();
    }
    let error: unknown;
    await createTestApp({ SERVICE_AUTH_DEFAULT_ROLES: 'member, not a role' }).catch((e: unknown) => (error = e));
    expect(error)
      .to.have.property('message')
      .that.matches(
        /^SERVICE_AUTH_DEFAULT_ROLES: "member, not a role" is not valid; expected role names separated by commas/,
      );
  });
});
