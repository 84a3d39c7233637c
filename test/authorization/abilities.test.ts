import { expect } from 'chai';
import { subject } from '@casl/ability';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createTestApp, type TestApp } from '../helpers/app.js';

const ada = { id: 7, email: 'ada@example.com', is_admin: false, roles: ['editor'] };

describe('abilities', () => {
  let t: TestApp;
  beforeEach(async () => {
    t = await createTestApp();
  });
  afterEach(() => t.auth.close());

  it('denies by default: no role, a role without rules, or an unknown role grant nothing', () => {
    t.auth.defineRole('editor', []);
    for (const roles of [[], ['editor'], ['ghost']]) {
      const ability = t.auth.abilityFor({ ...ada, roles });
      expect(ability.can('read', 'Article')).to.equal(false);
      expect(ability.can('read', subject('Article', { authorId: 7 }))).to.equal(false);
    }
  });

  it('grants what the roles define, as CASL rules with conditions, fields and inverted rules', () => {
    t.auth.defineRole('editor', [
      { action: ['read', 'update'], subject: 'Article', conditions: { published: false } },
      { action: 'read', subject: 'Article', fields: ['title'] },
      { action: 'delete', subject: 'Article', inverted: true, reason: 'editors never delete' },
    ]);
    const ability = t.auth.abilityFor(ada);
    expect(ability.can('update', subject('Article', { published: false }))).to.equal(true);
    expect(ability.can('update', subject('Article', { published: true }))).to.equal(false);
    expect(ability.can('read', subject('Article', { published: true }), 'title')).to.equal(true);
    expect(ability.can('read', subject('Article', { published: true }), 'body')).to.equal(false);
    expect(ability.can('delete', 'Article')).to.equal(false);
  });

  it('interpolates ${user.*} placeholders per user; a whole-value placeholder keeps its type', () => {
    t.auth.defineRole('editor', [
      { action: 'update', subject: 'Article', conditions: { authorId: '${user.id}' } },
      { action: 'read', subject: 'Inbox', conditions: { owner: 'mailto:${user.email}' } },
      { action: 'read', subject: 'Console', conditions: { adminOnly: '${user.is_admin}' } },
    ]);
    const ability = t.auth.abilityFor(ada);
    expect(ability.can('update', subject('Article', { authorId: 7 }))).to.equal(true);
    // The number 7, not the string "7": a strict comparison with a string id fails.
    expect(ability.can('update', subject('Article', { authorId: '7' }))).to.equal(false);
    expect(ability.can('update', subject('Article', { authorId: 8 }))).to.equal(false);
    expect(ability.can('read', subject('Inbox', { owner: 'mailto:ada@example.com' }))).to.equal(true);
    expect(ability.can('read', subject('Console', { adminOnly: false }))).to.equal(true);
    expect(ability.can('read', subject('Console', { adminOnly: 'false' }))).to.equal(false);
    // Another user gets their own values from the same role.
    expect(t.auth.abilityFor({ ...ada, id: 8 }).can('update', subject('Article', { authorId: 8 }))).to.equal(true);
  });

  it('rejects malformed rules and unknown placeholders when the role is defined', () => {
    expect(() => t.auth.defineRole('x', [{ subject: 'Article' } as never])).to.throw(
      TypeError,
      /role "x", rule 1: "action"/,
    );
    expect(() =>
      t.auth.defineRole('x', [{ action: 'read', subject: 'A', conditions: { owner: '${user.password}' } }]),
    ).to.throw(TypeError, /unknown placeholder \$\{user\.password\}/);
    expect(() =>
      t.auth.defineRole('x', [{ action: 'read', subject: 'A', conditions: { $where: 'true' } } as never]),
    ).to.throw(TypeError, /\$where/);
    expect(() => t.auth.defineRole('x', [{ action: 'read', subject: 'A', colour: 'red' } as never])).to.throw(
      TypeError,
      /role "x", rule 1: Unrecognized key: "colour"/,
    );
  });

  it('makes each named policy a CASL subject type with the action satisfy', () => {
    t.auth.definePolicy('is_self', (user, { user_id }) => user.id === user_id);
    const ability = t.auth.abilityFor(ada);
    expect(ability.can('satisfy', subject('is_self', { user_id: 7 }))).to.equal(true);
    expect(ability.can('satisfy', subject('is_self', { user_id: 8 }))).to.equal(false);
  });

  it("lets only the function decide a policy: not even a role's manage all satisfies it", () => {
    t.auth.defineRole('admin', [{ action: 'manage', subject: 'all' }]);
    t.auth.definePolicy('is_self', (user, { user_id }) => user.id === user_id);
    const admin = { ...ada, roles: ['admin'] };
    expect(t.auth.abilityFor(admin).can('delete', 'Anything')).to.equal(true);
    expect(t.auth.abilityFor(admin).can('satisfy', subject('is_self', { user_id: 99 }))).to.equal(false);
    expect(t.auth.can(admin, 'is_self', { user_id: 99 })).to.equal(false);
    expect(t.auth.can(admin, 'is_self', { user_id: 7 })).to.equal(true);
  });

  it('answers auth.can(user, policy, context) for service code, with req.user-like or plain users', () => {
    t.auth.definePolicy('is_self', (user, { user_id }) => user.id === user_id);
    t.auth.definePolicy('is_admin', (user) => user.isAdmin);
    expect(t.auth.can(ada, 'is_self', { user_id: 7 })).to.equal(true);
    expect(t.auth.can(ada, 'is_self', { user_id: 8 })).to.equal(false);
    expect(
      t.auth.can({ id: 1, email: 'root@example.com', isAdmin: true, roles: new Set<string>() }, 'is_admin'),
    ).to.equal(true);
    expect(t.auth.can(ada, 'is_admin')).to.equal(false);
  });

  it('replaces a policy that is defined again', () => {
    t.auth.definePolicy('open', () => false);
    expect(t.auth.can(ada, 'open')).to.equal(false);
    t.auth.definePolicy('open', () => true);
    expect(t.auth.can(ada, 'open')).to.equal(true);
    t.auth.define_policy('open', () => false);
    expect(t.auth.can(ada, 'open')).to.equal(false);
  });

  describe('fails closed, and logs why', () => {
    const denies = (reason: RegExp) => {
      const entry = t.log.entries.find((e) => reason.test(e.message));
      expect(entry, `a log line matching ${reason}`).not.to.equal(undefined);
    };

    it('for a policy that throws', () => {
      t.auth.definePolicy('broken', () => {
        throw new Error('no such column');
      });
      expect(t.auth.can(ada, 'broken')).to.equal(false);
      denies(/policy "broken" denied user 7: it threw/);
    });

    it('for a policy that returns anything but true', () => {
      for (const [name, value] of [
        ['truthy', 'yes'],
        ['one', 1],
        ['object', {}],
        ['nothing', undefined],
      ] as const) {
        t.auth.definePolicy(name, () => value as never);
        expect(t.auth.can(ada, name), name).to.equal(false);
      }
      denies(/policy "truthy" denied user 7: it returned "yes" instead of true or false/);
      denies(/policy "nothing" denied user 7: it returned undefined/);
    });

    it('for a policy that returns a Promise', () => {
      t.auth.definePolicy('async', (async () => true) as never);
      expect(t.auth.can(ada, 'async')).to.equal(false);
      denies(/policy "async" denied user 7: it returned a Promise \(policies must be synchronous\)/);
    });

    it('for a policy that is not defined', () => {
      expect(t.auth.can(ada, 'never_defined')).to.equal(false);
      expect(t.auth.abilityFor(ada).can('satisfy', subject('never_defined', {}))).to.equal(false);
      denies(/policy "never_defined" denied user 7: no policy with that name is defined/);
    });
  });

  describe('caching', () => {
    it('reuses one ability per user until their roles or the definitions change', () => {
      t.auth.defineRole('editor', [{ action: 'read', subject: 'Article' }]);
      const first = t.auth.abilityFor(ada);
      expect(t.auth.abilityFor({ ...ada })).to.equal(first);
      expect(t.auth.abilityFor({ ...ada, roles: ['editor', 'analyst'] })).not.to.equal(first);
      t.auth.defineRole('analyst', [{ action: 'read', subject: 'Report' }]);
      const rebuilt = t.auth.abilityFor(ada);
      expect(rebuilt).not.to.equal(first);
      t.auth.definePolicy('p', () => true);
      expect(t.auth.abilityFor(ada)).not.to.equal(rebuilt);
    });

    it('hands out the same compiled rules to everyone for a role without placeholders', () => {
      t.auth.defineRole('editor', [{ action: 'read', subject: 'Article' }]);
      const a = t.auth.abilityFor(ada).rules;
      const b = t.auth.abilityFor({ ...ada, id: 9, email: 'b@example.com' }).rules;
      expect(a[0]).to.equal(b[0]);
    });
  });

  describe('loadPolicies', () => {
    let dir: string;
    beforeEach(async () => {
      dir = await mkdtemp(join(tmpdir(), 'service-auth-policies-'));
    });
    afterEach(() => rm(dir, { recursive: true, force: true }));

    it('loads a file or every .json file of a directory, and returns the roles it defined', async () => {
      await writeFile(join(dir, 'a.json'), JSON.stringify({ reader: [{ action: 'read', subject: 'Article' }] }));
      await writeFile(
        join(dir, 'b.json'),
        JSON.stringify({ owner: [{ action: 'manage', subject: 'Article', conditions: { ownerId: '${user.id}' } }] }),
      );
      await writeFile(join(dir, 'notes.txt'), 'ignored');
      expect(t.auth.loadPolicies(dir)).to.deep.equal(['reader', 'owner']);
      expect(
        t.auth.abilityFor({ ...ada, roles: ['owner'] }).can('delete', subject('Article', { ownerId: 7 })),
      ).to.equal(true);
      expect(t.auth.loadPolicies(join(dir, 'a.json'))).to.deep.equal(['reader']);
    });

    it('names the file when it is not valid JSON or its rules are wrong', async () => {
      await writeFile(join(dir, 'broken.json'), '{ "reader": [');
      expect(() => t.auth.loadPolicies(join(dir, 'broken.json'))).to.throw(TypeError, /broken\.json: not valid JSON/);
      await writeFile(join(dir, 'wrong.json'), JSON.stringify({ reader: [{ action: 'read' }] }));
      expect(() => t.auth.loadPolicies(join(dir, 'wrong.json'))).to.throw(
        TypeError,
        /wrong\.json: \$\.reader\[0\]\.subject: must be a string or a list of strings/,
      );
      await writeFile(join(dir, 'list.json'), '[]');
      expect(() => t.auth.loadPolicies(join(dir, 'list.json'))).to.throw(
        TypeError,
        /list\.json: \$: expected an object/,
      );
    });
  });
});
