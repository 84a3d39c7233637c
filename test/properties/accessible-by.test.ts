/**
 * `auth.accessibleBy(user, action, subjectType)` keeps CASL's meaning (CONTRACT-2 §13.1): for any
 * rules and rows, the rows `em.find` returns with the filter are exactly those for which
 * `ability.can(action, subject(type, row))` holds, rows with NULL fields included (CASL's `$ne`
 * and `$nin` match a missing value, SQL's `<>` and `NOT IN` do not). Checked property-based
 * (access-rules.ts makes the roles, principals and rows) on SQLite, and on PostgreSQL when
 * SERVICE_AUTH_TEST_DATABASE_URL is set; then what has no faithful SQL form, which is refused with
 * a TypeError naming the role and rule (or the policy).
 */
import { expect } from 'chai';
import type { MikroORM } from '@mikro-orm/core';
import fc from 'fast-check';
import type { RoleRule } from '../../src/authorization/role-rules.js';
import { createTestApp, type TestApp } from '../helpers/app.js';
import { createPostgresDatabase, describePostgres } from '../helpers/services.js';
import { appAndTables, defineRoles, expectSameIds, inMemory, type OpenDatabase } from './database-suite.js';
import {
  accessCase,
  allows,
  idsAllowed,
  idsWhere,
  openThings,
  store,
  type AccessCase,
  type Row,
} from './access-rules.js';

/** What service code composes the filter with. */
const NORTH = { team: 'north' };

/** Every action and subject type the cases ask about (see `defineRoles`). */
const VOCABULARY: RoleRule = { action: ['read', 'update', 'delete'], subject: 'Thing' };

/**
 * Defines the case's roles, then holds the filter to the ability on the case's rows: alone, within
 * `$and` with a condition of the caller's, spread with one on a column the rules never name (the
 * most natural way to narrow it), and within `$or`.
 */
async function check(t: TestApp, orm: MikroORM, { roles, user, action, rows }: AccessCase): Promise<void> {
  defineRoles(t, VOCABULARY, roles);
  const ability = t.auth.abilityFor(user);
  const filter = t.auth.accessibleBy(user, action, 'Thing');
  await store(orm, rows);
  const where = `filter ${JSON.stringify(filter)}`;
  const allowed = (row: Row) => allows(ability, action, row);
  await expectSameIds(where, idsWhere(orm, filter), idsAllowed(orm, allowed));
  await expectSameIds(
    `${where} and ${JSON.stringify(NORTH)}`,
    idsWhere(orm, { $and: [filter, NORTH] }),
    idsAllowed(orm, (row) => row.team === 'north' && allowed(row)),
  );
  await expectSameIds(
    `${where} spread with archived: false`,
    idsWhere(orm, { ...filter, archived: false }),
    idsAllowed(orm, (row) => row.archived === false && allowed(row)),
  );
  await expectSameIds(
    `${where} or archived: true`,
    idsWhere(orm, { $or: [filter, { archived: true }] }),
    idsAllowed(orm, (row) => row.archived === true || allowed(row)),
  );
}

const ROWS: Row[] = [
  { id: 1, team: 'north', score: 2, flag: true, ownerId: 1 },
  { id: 2, team: 'south', score: -1, flag: false, ownerId: 2 },
  { id: 3, team: null, score: null, flag: null, ownerId: null },
  { id: 4, team: 'north', score: null, flag: false, ownerId: 3 },
];
const ada = { id: 1, email: 'ada@example.com', is_admin: false, roles: ['unit'] };

/** The suite, on the database `open` makes (and `drop`s after). */
function accessibleBySuite(open: OpenDatabase): void {
  let t: TestApp;
  let orm: MikroORM;
  appAndTables({ open, tables: openThings, ready: (suite) => ({ t, orm } = suite) });

  /** The ids the filter selects among ROWS, checked against the ability too. */
  const selected = async (rules: RoleRule[], action = 'read', extra: Record<string, RoleRule[]> = {}) => {
    defineRoles(t, VOCABULARY);
    for (const [name, more] of Object.entries(extra)) t.auth.defineRole(name, more);
    t.auth.defineRole('unit', rules, { includes: Object.keys(extra) });
    await store(orm, ROWS);
    const ids = await idsWhere(orm, t.auth.accessibleBy(ada, action, 'Thing'));
    expect(ids, 'the ability').to.deep.equal(
      await idsAllowed(orm, (row) => allows(t.auth.abilityFor(ada), action, row)),
    );
    return ids;
  };

  it('selects exactly the rows the ability allows: random rules, placeholders, $and/$or/$nor/$not, inverted and included roles, rows with NULLs', async () => {
    await fc.assert(
      fc.asyncProperty(accessCase(), (c) => check(t, orm, c)),
      { numRuns: 300 },
    );
  });

  it('selects the same rows with flat conditions only (no $and, $or, $nor, $not), where most cases match some rows', async () => {
    await fc.assert(
      fc.asyncProperty(accessCase({ compound: false }), (c) => check(t, orm, c)),
      { numRuns: 200 },
    );
  });

  it('selects the same rows with many refusals interleaved with grants (up to 48 rules, half inverted), the filter nesting by priority', async () => {
    await fc.assert(
      fc.asyncProperty(accessCase({ manyRefusals: true }), (c) => check(t, orm, c)),
      { numRuns: 100 },
    );
  });

  it('decides by priority: the highest rule that matches, whatever lies below it; each rule written once', async () => {
    const read = (conditions: Record<string, unknown>, inverted = false): RoleRule => ({
      action: 'read',
      subject: 'Thing',
      conditions,
      ...(inverted && { inverted }),
    });
    // From the bottom: north rows, but not the flagged, except the flagged with score 2, but not owner 1's.
    const rules = [read({ team: 'north' }), read({ flag: true }, true), read({ score: 2 }), read({ ownerId: 1 }, true)];
    expect(await selected(rules)).to.deep.equal([4]);
    expect(await selected([...rules, read({ team: 'south' })])).to.deep.equal([2, 4]);
    const filter = JSON.stringify(t.auth.accessibleBy(ada, 'read', 'Thing'));
    expect(filter.match(/"ownerId"/g), filter).to.have.length(2); // `<> 1 or NULL`, once
  });

  it('needs no NULL branch on a NOT NULL column (the primary key, with { em }), and selects the same rows', async () => {
    const read = (conditions: Record<string, unknown>, inverted = false): RoleRule => ({
      action: 'read',
      subject: 'Thing',
      conditions,
      ...(inverted && { inverted }),
    });
    const cases: [RoleRule[], number[]][] = [
      [
        [read({ id: { $ne: 2 } }), read({ id: { $nin: [1, null] }, team: 'north' }, true)],
        [1, 3],
      ],
      [[read({ id: { $in: [1, 2, null] } }), read({ id: null }, true), read({ id: { $lt: 2 } }, true)], [2]],
    ];
    await store(orm, ROWS);
    for (const [rules, ids] of cases) {
      defineRoles(t, VOCABULARY);
      t.auth.defineRole('unit', rules);
      const filter = t.auth.accessibleBy(ada, 'read', 'Thing', { em: orm.em });
      expect(JSON.stringify(filter)).not.to.include('"id":null');
      expect(await idsWhere(orm, filter), JSON.stringify(filter)).to.deep.equal(ids);
      expect(await idsAllowed(orm, (row) => allows(t.auth.abilityFor(ada), 'read', row))).to.deep.equal(ids);
    }
  });

  it('matches nothing when no rule grants the action, alone or composed: $and, $or, spread', async () => {
    expect(await selected([])).to.deep.equal([]);
    expect(
      await selected([
        { action: 'update', subject: 'Thing' },
        { action: 'read', subject: 'Other' },
      ]),
    ).to.deep.equal([]);
    expect(
      await selected([{ action: 'read', subject: 'Thing', inverted: true, conditions: { team: 'south' } }]),
    ).to.deep.equal([]);
    const none = t.auth.accessibleBy(ada, 'read', 'Thing');
    expect(await idsWhere(orm, { $and: [none, NORTH] })).to.deep.equal([]);
    expect(await idsWhere(orm, { $or: [none, NORTH] })).to.deep.equal([1, 4]);
    // `[]` spread into an object left `{ team: 'north' }`: every north row.
    expect(await idsWhere(orm, { ...none, ...NORTH })).to.deep.equal([]);
    // For an entity whose primary key is not `id`.
    expect(t.auth.accessibleBy(ada, 'read', 'Thing', { primaryKey: 'uuid' })).to.deep.equal({ uuid: { $in: [] } });
  });

  it('matches every row for an unconditional rule, also through manage or all', async () => {
    expect(await selected([{ action: 'read', subject: 'Thing' }])).to.deep.equal([1, 2, 3, 4]);
    expect(await selected([{ action: 'manage', subject: 'all' }], 'delete')).to.deep.equal([1, 2, 3, 4]);
    expect(await idsWhere(orm, { $and: [t.auth.accessibleBy(ada, 'read', 'Thing'), NORTH] })).to.deep.equal([1, 4]);
    // `{}` in an `$or` was dropped by MikroORM, leaving the other branch alone.
    expect(await idsWhere(orm, { $or: [t.auth.accessibleBy(ada, 'read', 'Thing'), { team: 'nobody' }] })).to.deep.equal(
      [1, 2, 3, 4],
    );
  });

  it('matches nothing under an unconditional inverted rule above conditional grants, and only those grants under one below them', async () => {
    const grant: RoleRule = { action: 'read', subject: 'Thing', conditions: { team: 'north' } };
    const refusal: RoleRule = { action: 'read', subject: 'Thing', inverted: true };
    expect(await selected([grant, refusal])).to.deep.equal([]);
    expect(await selected([refusal], 'read', { viewer: [grant] }), 'above the rules of an included role').to.deep.equal(
      [],
    );
    expect(await selected([refusal, grant])).to.deep.equal([1, 4]);
  });

  it('matches a NULL column where the ability does: $ne, $nin, inverted rules, and no order (strict by type)', async () => {
    expect(
      await selected([{ action: 'read', subject: 'Thing', conditions: { team: { $ne: 'north' } } }]),
    ).to.deep.equal([2, 3]);
    expect(
      await selected([{ action: 'read', subject: 'Thing', conditions: { ownerId: { $nin: ['${user.id}', 2] } } }]),
    ).to.deep.equal([3, 4]);
    expect(
      await selected([
        { action: 'read', subject: 'Thing' },
        { action: 'read', subject: 'Thing', inverted: true, conditions: { flag: false } },
      ]),
    ).to.deep.equal([1, 3]);
    expect(
      await selected([{ action: 'read', subject: 'Thing', conditions: { score: { $lt: 1 } } }]),
      'NULL is below no bound',
    ).to.deep.equal([2]);
    expect(await selected([{ action: 'read', subject: 'Thing', conditions: { score: { $gt: 0 } } }])).to.deep.equal([
      1,
    ]);
    expect(
      await selected([{ action: 'read', subject: 'Thing', conditions: { score: { $gt: -2 } } }]),
      'NULL is above no bound',
    ).to.deep.equal([1, 2]);
    expect(
      await selected([{ action: 'read', subject: 'Thing', conditions: { score: { $not: { $lt: 1 } } } }]),
      'the negation holds for NULL',
    ).to.deep.equal([1, 3, 4]);
  });
}

describe('accessibleBy selects the rows CASL allows [SQLite]', () => {
  accessibleBySuite(inMemory);
});

describePostgres('accessibleBy selects the rows CASL allows', () => {
  accessibleBySuite(createPostgresDatabase);
});

describe('accessibleBy refuses what has no faithful SQL form, naming the rule', () => {
  let t: TestApp;
  beforeEach(async () => {
    t = await createTestApp();
  });
  afterEach(() => t.auth.close());

  /** A role "x" whose second rule has `conditions`, inverted or not: accessibleBy throws, naming it. */
  const expectRefused = (conditions: Record<string, unknown>, inverted = false) => {
    const rule = { action: 'read', subject: 'Thing', conditions, ...(inverted && { inverted }) } as RoleRule;
    t.auth.defineRole('x', [{ action: 'read', subject: 'Thing', conditions: { ownerId: 1 } }, rule]);
    expect(() => t.auth.accessibleBy(ada, 'read', 'Thing'), JSON.stringify(conditions)).to.throw(
      TypeError,
      /role "x", rule 2/,
    );
  };
  const ada = { id: 1, email: 'ada@example.com', is_admin: false, roles: ['x'] };

  it('an operator with no SQL form: $regex, $exists, $elemMatch, $size, $all', () => {
    for (const conditions of [
      { team: { $regex: '^n' } },
      { team: { $exists: true } },
      { team: { $elemMatch: { $eq: 'n' } } },
      { team: { $size: 1 } },
      { team: { $all: ['n'] } },
    ]) {
      expectRefused(conditions);
      expectRefused(conditions, true);
    }
  });

  it('a string bound for $lt, $lte, $gt or $gte (the database orders strings by its collation)', () => {
    for (const op of ['$lt', '$lte', '$gt', '$gte']) expectRefused({ team: { [op]: 'm' } });
    expect(() => t.auth.accessibleBy(ada, 'read', 'Thing')).to.throw(TypeError, /compares numbers only/);
  });

  it('a dotted field', () => {
    expectRefused({ 'owner.id': 1 });
    expect(() => t.auth.accessibleBy(ada, 'read', 'Thing')).to.throw(TypeError, /dotted paths/);
  });

  it('conditions CASL cannot read, refused when the role is defined rather than when it is used', () => {
    // Found while writing this suite, when CASL's conditions here did not know $and, $or, $nor and
    // $not: with a value that is not a list, the name went into the filter, where MikroORM took it
    // for its own operator (the query failed, naming no rule). Now they are operators, and such
    // values are refused with the role's definition.
    for (const conditions of [
      { $or: null },
      { $or: 'x' },
      { $not: 'x' },
      { $nor: 1 },
      { $and: true },
      { team: { $foo: 1 } },
    ]) {
      const rule = { action: 'read', subject: 'Thing', conditions } as RoleRule;
      expect(
        () => t.auth.defineRole('x', [{ action: 'read', subject: 'Thing' }, rule]),
        JSON.stringify(conditions),
      ).to.throw(TypeError, /role "x", rule 2: "conditions": (the conditions cannot be read|unknown operator)/);
    }
  });

  it('a named policy, whose condition is code', () => {
    t.auth.definePolicy('p', () => true);
    expect(() => t.auth.accessibleBy(ada, 'satisfy', 'p')).to.throw(TypeError, /policy "p"/);
  });
});
