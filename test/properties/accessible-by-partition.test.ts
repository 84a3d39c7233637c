/**
 * Rules that all fix one column (organization roles, each rule bound to its `org_id`) are
 * partitioned by it in `accessibleBy(…, { em })` (partition-query.ts): each value's rules nest
 * alone, and values whose rules are alike are one `IN (…)`. The property: for generated roles
 * whose rules (nearly) all say `field = value` at their top, on generated rows, the partitioned
 * filter selects exactly the rows the filter nested as the rules stand selects, and exactly those
 * `can` allows. On SQLite, and on PostgreSQL when SERVICE_AUTH_TEST_DATABASE_URL is set. Then fixed
 * cases: what the partition saves, and where it is not taken.
 */
import { expect } from 'chai';
import type { MikroORM } from '@mikro-orm/core';
import fc from 'fast-check';
import { conditionToQuery } from '../../src/authorization/condition-query.js';
import { byPriority } from '../../src/authorization/priority-query.js';
import type { RoleRule } from '../../src/authorization/role-rules.js';
import { createTestApp, type TestApp } from '../helpers/app.js';
import { createPostgresDatabase, describePostgres } from '../helpers/services.js';
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

type Field = 'team' | 'score' | 'flag' | 'ownerId';
/** The values a rule fixes its partition column to: of its type, or a placeholder (an email for a number: not). */
const TAGS: Record<Field, unknown[]> = {
  team: ['north', 'south', 'North', '${user.email}'],
  score: [0, 1, 2],
  flag: [true, false, '${user.is_admin}'],
  ownerId: [1, 2, 3, '${user.id}', '${user.email}'],
};

/**
 * An access case whose rules say `field = value` at their top (an unconditional rule becomes one
 * that does, mostly): one rule in fifteen is left as generated, so the partition is not always taken.
 */
const partitionedCase: fc.Arbitrary<AccessCase> = fc
  .tuple(
    accessCase(),
    fc.constantFrom<Field>('team', 'score', 'flag', 'ownerId'),
    fc.array(fc.nat(), { minLength: 64, maxLength: 64 }),
  )
  .map(([base, field, picks]) => {
    let next = 0;
    const tag = (rule: RoleRule): RoleRule => {
      const pick = picks[next++ % picks.length]!;
      if (pick % 15 === 14 || (!rule.conditions && pick % 4 === 3)) return rule;
      const value = TAGS[field][pick % TAGS[field].length];
      return { ...rule, conditions: { ...rule.conditions, [field]: value } } as RoleRule;
    };
    return { ...base, roles: base.roles.map((role) => ({ ...role, rules: role.rules.map(tag) })) };
  });

/** The filter as the rules stand, nested by priority without the partition. */
function nested(t: TestApp, orm: MikroORM, user: AccessCase['user'], action: string): unknown {
  const meta = orm.getMetadata().find('Thing')!;
  const rules = t.auth.abilityFor(user).rulesFor(action, 'Thing');
  const query = byPriority(rules, (rule) => conditionToQuery(rule.ast!, rule.inverted, meta));
  return query === true ? {} : query === false ? { id: { $in: [] } } : query;
}

async function check(t: TestApp, orm: MikroORM, { roles, user, action, rows }: AccessCase): Promise<void> {
  t.auth.defineRole('vocabulary', [{ action: ['read', 'update', 'delete'], subject: 'Thing' }]);
  for (const role of roles) t.auth.defineRole(role.name, role.rules, { includes: role.includes });
  const ability = t.auth.abilityFor(user);
  const filter = t.auth.accessibleBy(user, action, 'Thing', { em: orm.em });
  const plain = nested(t, orm, user, action);
  await store(orm, rows);
  const where = `filter ${JSON.stringify(filter)}, nested ${JSON.stringify(plain)}`;
  const ids = await idsWhere(orm, filter);
  expect(ids, where).to.deep.equal(await idsWhere(orm, plain));
  expect(ids, where).to.deep.equal(await idsAllowed(orm, (row: Row) => allows(ability, action, row)));
  expect(await idsWhere(orm, { $or: [filter, { archived: true }] }), `${where} or archived: true`).to.deep.equal(
    await idsAllowed(orm, (row) => row.archived === true || allows(ability, action, row)),
  );
}

const read = (conditions?: Record<string, unknown>, inverted = false): RoleRule =>
  ({ action: 'read', subject: 'Thing', ...(conditions && { conditions }), ...(inverted && { inverted }) }) as RoleRule;
/** One organization role's rules, bound to `team` as an organization role is to its `org_id`. */
const teamRole = (team: string): RoleRule[] => [
  read({ team, ownerId: '${user.id}' }),
  read({ team, score: { $gte: 1 } }),
  read({ team, flag: true }, true),
];
const ROWS: Row[] = [
  { id: 1, team: 'north', score: 2, flag: true, ownerId: 1 },
  { id: 2, team: 'south', score: 1, flag: false, ownerId: 2 },
  { id: 3, team: null, score: null, flag: null, ownerId: 1 },
  { id: 4, team: 'east', score: 3, flag: false, ownerId: 3 },
  { id: 5, team: 'north', score: 0, flag: false, ownerId: 1 },
];

function partitionSuite(open: () => Promise<{ url?: string; drop(): Promise<void> }>): void {
  let t: TestApp;
  let orm: MikroORM | undefined;
  let drop: (() => Promise<void>) | undefined;
  before(async () => {
    t = await createTestApp();
    const database = await open();
    drop = database.drop;
    orm = await openThings(database.url);
  });
  after(async () => {
    await orm?.close();
    await drop?.();
    await t.auth.close();
  });

  it('selects the rows the nested filter and the ability select: rules fixing a column, refusals, NULLs', async () => {
    await fc.assert(
      fc.asyncProperty(partitionedCase, (c) => check(t, orm!, c)),
      { numRuns: 300 },
    );
  });

  /** Defines `rules` for ada; the filter and the ids it selects among ROWS (checked against the ability). */
  const selected = async (rules: RoleRule[]) => {
    t.auth.defineRole('vocabulary', [{ action: 'read', subject: 'Thing' }]);
    t.auth.defineRole('unit', rules);
    const ada = { id: 1, email: 'ada@example.com', is_admin: false, roles: ['unit'] };
    await store(orm!, ROWS);
    const filter = t.auth.accessibleBy(ada, 'read', 'Thing', { em: orm!.em });
    const ids = await idsWhere(orm!, filter);
    const allowed = await idsAllowed(orm!, (row) => allows(t.auth.abilityFor(ada), 'read', row));
    expect(ids, JSON.stringify(filter)).to.deep.equal(allowed);
    return { filter: JSON.stringify(filter), ids };
  };

  it('says alike rules of several values once, with IN; a refusal bound to one value spares the others', async () => {
    const { filter, ids } = await selected([...teamRole('north'), ...teamRole('south'), ...teamRole('east')]);
    expect(ids).to.deep.equal([2, 4, 5]);
    expect(filter.match(/"score"/g), filter).to.have.length(1);
    expect(filter).to.include('"team":{"$in":["east","south","north"]}');
  });

  it('gives the rows of no partition (another value, NULL) what the unconditional rule below says', async () => {
    const { filter, ids } = await selected([read(), ...teamRole('north'), ...teamRole('south')]);
    expect(ids, 'row 3 (NULL team) and row 4 (east) by the unconditional grant').to.deep.equal([2, 3, 4, 5]);
    // Above a grant of every row the grants say nothing; the refusal, alike for both teams, is said once.
    expect(filter.match(/"flag"/g), filter).to.have.length(2);
    expect((await selected([read(undefined, true), ...teamRole('north')])).ids).to.deep.equal([5]);
  });

  it('keeps partitions apart where their rules differ; a rule with only the column applies to its rows', async () => {
    const rules = [...teamRole('north'), read({ team: 'south' }), read({ team: 'east', flag: false }, true)];
    const { ids } = await selected(rules);
    expect(ids).to.deep.equal([2, 5]);
  });

  it('takes out of a rule only the test it is partitioned by (fixed case: the same field tested twice)', async () => {
    // `$and` is flattened to the rule's top: `flag = null AND flag = true` matches nothing, and stays so.
    const never = read({ $and: [{ team: 'north', flag: null }], flag: true });
    const { ids } = await selected([never, read({ flag: false, score: 1 })]);
    expect(ids).to.deep.equal([2]);
  });

  it('is not taken when a rule does not fix the column, or fixes it to a placeholder of another type', async () => {
    const unbound = await selected([...teamRole('north'), ...teamRole('south'), read({ ownerId: 3 })]);
    expect(unbound.ids).to.deep.equal([2, 4, 5]);
    expect(unbound.filter.match(/"score"/g), 'each role nested as it stands').to.have.length(2);
    const mistyped = [read({ ownerId: '${user.email}', score: 2 }), read({ ownerId: 1, score: { $lt: 3 } })];
    const typed = await selected(mistyped);
    expect(typed.ids).to.deep.equal([1, 5]);
  });
}

describe('accessibleBy partitions rules by a column they all fix [SQLite]', () => {
  partitionSuite(async () => ({ drop: async () => {} }));
});

describePostgres('accessibleBy partitions rules by a column they all fix', () => {
  partitionSuite(createPostgresDatabase);
});

describe('accessibleBy builds a filter once per ability, action and subject type', () => {
  let t: TestApp;
  let orm: MikroORM;
  before(async () => {
    t = await createTestApp();
    orm = await openThings();
  });
  after(async () => {
    await orm.close();
    await t.auth.close();
  });
  const ada = { id: 1, email: 'ada@example.com', is_admin: false, roles: ['unit'] };

  it('gives each call its own copy, and a new filter when the rules change', async () => {
    t.auth.defineRole('unit', [...teamRole('north'), ...teamRole('south')]);
    await store(orm, ROWS);
    const first = t.auth.accessibleBy(ada, 'read', 'Thing', { em: orm.em }) as Record<string, unknown>;
    const built = JSON.stringify(first);
    // What a caller (or MikroORM) does to its filter is not seen by the next call.
    for (const key of Object.keys(first)) delete first[key];
    first['team'] = 'north';
    const second = t.auth.accessibleBy(ada, 'read', 'Thing', { em: orm.em });
    expect(JSON.stringify(second)).to.equal(built);
    expect(await idsWhere(orm, second)).to.deep.equal([2, 5]);
    t.auth.defineRole('unit', teamRole('east'));
    expect(await idsWhere(orm, t.auth.accessibleBy(ada, 'read', 'Thing', { em: orm.em }))).to.deep.equal([4]);
    t.auth.abilityFor(ada).update([]);
    const updated = t.auth.accessibleBy(ada, 'read', 'Thing', { em: orm.em });
    expect(await idsWhere(orm, updated), 'after ability.update').to.deep.equal([]);
    // The primary key the options name is the filter's, built for each.
    expect(t.auth.accessibleBy(ada, 'read', 'Thing', { primaryKey: 'uuid' })).to.deep.equal({ uuid: { $in: [] } });
    expect(t.auth.accessibleBy(ada, 'read', 'Thing')).to.deep.equal({ id: { $in: [] } });
  });
});
