/**
 * A scoped token's ability is exactly the conjunction of its owner's and its scopes' (CONTRACT-3
 * §25a): for generated role rules, scope rules (placeholders, compound conditions, per-field
 * rules), principals and rows, the scoped ability (`auth.abilityFor(user, { scopes })`, what a
 * request with such a token gets as `req.ability`) allows a row, in memory and through
 * `accessibleBy` + `em.find`, exactly when the user's ability and the scopes' both do. The scopes'
 * ability is built independently: a role holding the union of the token's scopes' rules. The
 * rules `GET /api/abilities` serialises for such a token, built into a plain CASL ability, decide
 * the same.
 * On SQLite, and on PostgreSQL when SERVICE_AUTH_TEST_DATABASE_URL is set.
 */
import { expect } from 'chai';
import { rulesToAST } from '@casl/ability/extra';
import type { MikroORM } from '@mikro-orm/core';
import fc from 'fast-check';
import type { AppAbility } from '../../src/authorization/ability-types.js';
import { decide } from '../../src/authorization/decision.js';
import { conditionToQuery } from '../../src/authorization/condition-query.js';
import type { RoleRule } from '../../src/authorization/role-rules.js';
import { createTestApp, type TestApp } from '../helpers/app.js';
import { createPostgresDatabase, describePostgres } from '../helpers/services.js';
import { appAndTables, defineRoles, expectSameIds, inMemory, type OpenDatabase } from './database-suite.js';
import {
  accessCase,
  allows,
  grantRule,
  idsAllowed,
  idsWhere,
  openThings,
  store,
  type AccessCase,
  type Row,
} from './access-rules.js';
import { createMongoAbility, subject } from '@casl/ability';
import { conditionsMatcher } from '../../src/authorization/conditions.js';
import { toPrincipal } from '../../src/authorization/principal.js';

const SCOPE_NAMES = ['things:read', 'things:write', 'things:team'] as const;

interface ScopedCase extends AccessCase {
  scopes: Record<(typeof SCOPE_NAMES)[number], RoleRule[]>;
  /** The token's scopes; `ghost:scope` is never defined and grants nothing. */
  carried: string[];
}

const scopedCase: fc.Arbitrary<ScopedCase> = fc
  .tuple(
    accessCase(),
    fc.record({
      'things:read': fc.array(grantRule(), { maxLength: 3 }),
      'things:write': fc.array(grantRule(), { maxLength: 3 }),
      'things:team': fc.array(grantRule(), { maxLength: 3 }),
    }),
    fc.subarray([...SCOPE_NAMES, 'ghost:scope'], { minLength: 1 }),
  )
  .map(([access, scopes, carried]) => ({ ...access, scopes, carried }));

const decided = (ability: AppAbility, action: string, row: Row, field?: string) =>
  decide(ability, action, subject('Thing', { ...row }), field).allowed;

async function check(t: TestApp, orm: MikroORM, c: ScopedCase): Promise<void> {
  defineRoles(t, { action: ['read', 'update', 'delete'], subject: 'Thing' }, c.roles);
  for (const [name, rules] of Object.entries(c.scopes)) t.auth.defineScope(name, rules, `Scope ${name}`);
  // The scopes' ability, independently: a role with the union of the carried scopes' rules.
  t.auth.defineRole(
    'token-scopes',
    c.carried.flatMap((name) => c.scopes[name as keyof ScopedCase['scopes']] ?? []),
  );
  const owner = t.auth.abilityFor(c.user);
  const scopes = t.auth.abilityFor({ ...c.user, roles: ['token-scopes'] });
  const scoped = t.auth.abilityFor(c.user, { scopes: c.carried });
  const { action } = c;
  const fieldless = [...c.roles.flatMap((role) => role.rules), ...Object.values(c.scopes).flat()].every(
    (rule) => rule.fields === undefined,
  );
  const front = createMongoAbility(t.parts.abilities.serializableRules(toPrincipal(c.user), undefined, c.carried), {
    conditionsMatcher,
  });
  for (const row of c.rows) {
    const where = `row ${JSON.stringify(row)}`;
    expect(allows(scoped, action, row), `can, ${where}`).to.equal(
      allows(owner, action, row) && allows(scopes, action, row),
    );
    expect(decided(scoped, action, row), `decide, ${where}`).to.equal(
      decided(owner, action, row) && decided(scopes, action, row),
    );
    expect(decided(scoped, action, row, 'team'), `decide on a field, ${where}`).to.equal(
      decided(owner, action, row, 'team') && decided(scopes, action, row, 'team'),
    );
    // The rules GET /api/abilities hands a front end, built into a plain CASL ability: the same
    // answers on a field; on no field in particular, the same where no rule names fields, and
    // never more (two rules allowing no field in common make no rule: rule-intersection.ts).
    const thing = subject('Thing', { ...row });
    for (const field of ['team', 'score'] as const)
      expect(front.can(action, thing, field), `serialised rules on ${field}, ${where}`).to.equal(
        scoped.can(action, thing, field),
      );
    if (fieldless) expect(front.can(action, thing), `serialised rules, ${where}`).to.equal(allows(scoped, action, row));
    else if (front.can(action, thing))
      expect(allows(scoped, action, row), `serialised rules allow no more, ${where}`).to.equal(true);
    // CASL's own walk of `rulesFor` (what rule walkers read) gives the same answer.
    const rule = scoped
      .rulesFor(action, 'Thing')
      .find((candidate) => candidate.matchesConditions(subject('Thing', { ...row })));
    expect(Boolean(rule && !rule.inverted), `rulesFor, ${where}`).to.equal(allows(scoped, action, row));
  }
  await store(orm, c.rows);
  const both = (row: Row) => allows(owner, action, row) && allows(scopes, action, row);
  const filter = t.auth.accessibleBy(c.user, action, 'Thing', { scopes: c.carried });
  await expectSameIds(`filter ${JSON.stringify(filter)}`, idsWhere(orm, filter), idsAllowed(orm, both));
  // CASL's rulesToAST over the scoped ability's rules: the same rows.
  const ast = rulesToAST(scoped, action, 'Thing');
  const query = ast ? conditionToQuery(ast) : false;
  const viaRules = query === true ? {} : query === false ? { id: { $in: [] } } : query;
  await expectSameIds(`rulesToAST ${JSON.stringify(viaRules)}`, idsWhere(orm, viaRules), idsAllowed(orm, both));
}

function scopedSuite(open: OpenDatabase, runs: number): void {
  let t: TestApp;
  let orm: MikroORM;
  appAndTables({ open, tables: openThings, ready: (suite) => ({ t, orm } = suite) });

  it("decides, in memory and through accessibleBy + em.find, exactly as the owner's ability and the scopes' both do", async () => {
    await fc.assert(
      fc.asyncProperty(scopedCase, (c) => check(t, orm, c)),
      { numRuns: runs },
    );
  });
}

describe("a scoped token's ability is the conjunction of its owner's and its scopes' [SQLite]", () => {
  scopedSuite(inMemory, 150);
});

describePostgres("a scoped token's ability is the conjunction of its owner's and its scopes'", () => {
  scopedSuite(createPostgresDatabase, 40);
});

describe('the rules GET /api/abilities serialises for a scoped token, in a corner', () => {
  it('gives no rule where the roles and the scopes allow no field in common (the server says yes to no field in particular, and lets none be changed)', async () => {
    const t = await createTestApp();
    try {
      t.auth.defineRole('renamer', [{ action: 'update', subject: 'Thing', fields: ['team'] }]);
      t.auth.defineScope('things:score', [{ action: 'update', subject: 'Thing', fields: ['score'] }], 'Score things');
      const user = { id: 1, email: 'ada@example.com', is_admin: false, roles: ['renamer'] };
      const thing = subject('Thing', { id: 1, team: 'north', score: 1 });
      const scoped = t.auth.abilityFor(user, { scopes: ['things:score'] });
      expect([
        scoped.can('update', thing),
        scoped.can('update', thing, 'team'),
        scoped.can('update', thing, 'score'),
      ]).to.deep.equal([true, false, false]);
      expect(t.parts.abilities.serializableRules(toPrincipal(user), undefined, ['things:score'])).to.deep.equal([]);
    } finally {
      await t.auth.close();
    }
  });
});
