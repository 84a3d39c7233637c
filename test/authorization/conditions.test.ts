/**
 * `$not` is MongoDB's, and so CASL's: it negates one field's test. Over whole conditions (at the
 * top of `conditions`, or inside `$and`/`$or`/`$nor`) CASL cannot read it, so a rule that puts it
 * there is refused when the role is defined, saying where `$not` goes and what negates whole
 * conditions (`$nor`); both forms grant what they say, in memory and as `accessibleBy`'s filter.
 */
import { expect } from 'chai';
import { subject } from '@casl/ability';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { MikroORM } from '@mikro-orm/core';
import type { RoleRule } from '../../src/authorization/role-rules.js';
import { createTestApp, type TestApp } from '../helpers/app.js';
import { idsWhere, openThings, store } from '../properties/access-rules.js';

const ada = { id: 7, email: 'ada@example.com', is_admin: false, roles: ['reader'] };
const HINT =
  '$not applies to one field, as in { "team": { "$not": { "$eq": "north" } } }; to negate whole conditions, use { "$nor": [{ "team": "north" }] }';

describe('conditions: $not', () => {
  let t: TestApp;
  let things: MikroORM;
  before(async () => {
    t = await createTestApp();
    things = await openThings();
    await store(things, [
      { id: 1, team: 'north', score: 1, flag: true, ownerId: 1 },
      { id: 2, team: 'south', score: 1, flag: true, ownerId: 1 },
      { id: 3, team: null, score: 1, flag: true, ownerId: 1 },
    ]);
  });
  after(async () => {
    await things.close();
    await t.auth.close();
  });

  const readReports = (conditions: object): RoleRule[] => [
    { action: 'read', subject: 'Report', conditions } as RoleRule,
  ];
  const reads = (team: string | null) => t.auth.abilityFor(ada).can('read', subject('Report', { team }));

  it('over whole conditions is refused when the role is defined, naming the rule, where $not goes and what to write instead', () => {
    for (const conditions of [{ $not: { team: 'north' } }, { $or: [{ year: 2026 }, { $not: { team: 'north' } }] }]) {
      expect(() => t.auth.defineRole('reader', readReports(conditions)), JSON.stringify(conditions)).to.throw(
        TypeError,
        `role "reader", rule 1: "conditions": the conditions cannot be read: ${HINT}`,
      );
    }
  });

  it('over whole conditions is refused in a policy file too, by JSON path', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'service-auth-not-'));
    try {
      await writeFile(join(dir, 'roles.json'), JSON.stringify({ reader: readReports({ $not: { team: 'north' } }) }));
      let error: unknown;
      try {
        await t.auth.loadPolicies(dir);
      } catch (thrown) {
        error = thrown;
      }
      expect(error).to.be.instanceOf(Error);
      expect((error as Error).message)
        .to.contain('$.reader[0].conditions')
        .and.contain(HINT);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it('on a field, and $nor over conditions, grant what they say, in memory and as the rows accessibleBy selects', async () => {
    for (const conditions of [{ team: { $not: { $eq: 'north' } } }, { $nor: [{ team: 'north' }] }]) {
      t.auth.defineRole('reader', [{ action: 'read', subject: ['Report', 'Thing'], conditions } as RoleRule]);
      expect([reads('north'), reads('south'), reads(null)], JSON.stringify(conditions)).to.deep.equal([
        false,
        true,
        true,
      ]);
      expect(
        await idsWhere(things, t.auth.accessibleBy(ada, 'read', 'Thing')),
        JSON.stringify(conditions),
      ).to.deep.equal([2, 3]);
    }
  });
});
