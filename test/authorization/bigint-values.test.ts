/**
 * A bigint column (MikroORM's `p.bigint()`, whose field holds a JavaScript bigint) is a type of its
 * own: a number never equals a bigint, in memory (`$eq` and `$in` alike) as in SQL, where a rule
 * comparing one with a number is the wrong-type-literal TypeError of accessibleBy and req.em. And
 * NaN equals no number. SQLite in memory.
 */
import { subject } from '@casl/ability';
import { defineEntity, MikroORM } from '@mikro-orm/core';
import { expect } from 'chai';
import { columnType } from '../../src/authorization/column-types.js';
import { strictCompare } from '../../src/authorization/matcher.js';
import { createTestApp, type TestApp } from '../helpers/app.js';
import { createSchema, sqliteDefaults } from '../helpers/orm.js';

const p = defineEntity.properties;
const Ledger = defineEntity({
  name: 'Ledger',
  tableName: 'bigint_ledgers',
  properties: { id: p.integer().primary(), ref: p.bigint(), small: p.bigint('number'), code: p.bigint('string') },
});

describe('bigint values', () => {
  let t: TestApp;
  let orm: MikroORM;
  const user = { id: 1, email: 'ada@example.com', roles: ['r'] };

  before(async () => {
    t = await createTestApp();
    orm = await MikroORM.init({ ...sqliteDefaults(':memory:'), entities: [Ledger], debug: false });
    await createSchema(orm);
    t.auth.enforce(orm);
  });
  after(async () => {
    await t.auth.close();
    await orm.close();
  });

  it('compare strictly: a bigint with a bigint only, and NaN equal to nothing', () => {
    expect(strictCompare<unknown>(7n, 7)).to.be.NaN;
    expect(strictCompare<unknown>(7, 7n)).to.be.NaN;
    expect(strictCompare(7n, 8n)).to.equal(-1);
    expect(strictCompare(7n, 7n)).to.equal(0);
    expect(strictCompare(Number.NaN, 1)).to.be.NaN;
    expect(strictCompare(Number.NaN, Number.NaN)).to.be.NaN;
  });

  it('a number in a rule never matches a bigint field, with $eq as with $in', () => {
    for (const ref of [7, { $eq: 7 }, { $in: [7] }, { $gte: 7 }]) {
      t.auth.defineRole('r', [{ action: 'read', subject: 'Ledger', conditions: { ref } }]);
      const ability = t.auth.abilityFor(user);
      expect(ability.can('read', subject('Ledger', { id: 1, ref: 7n })), JSON.stringify(ref)).to.equal(false);
      expect(ability.can('read', subject('Ledger', { id: 1, ref: 7 })), JSON.stringify(ref)).to.equal(true);
    }
  });

  it("is a column type of its own, by the column's mode, discovered or not", () => {
    const meta = orm.getMetadata().find('Ledger')!;
    const discovered = ['ref', 'small', 'code'].map((name) => columnType(meta.properties[name as 'ref']));
    expect(discovered).to.deep.equal(['bigint', 'number', 'string']);
    const undiscovered = (Ledger as unknown as { meta: { properties: Record<string, object> } }).meta.properties;
    expect(['ref', 'small', 'code'].map((name) => columnType(undiscovered[name]))).to.deep.equal([
      'bigint',
      'number',
      'string',
    ]);
  });

  it('a number compared with a bigint column is a TypeError through accessibleBy and req.em, as SQL would coerce it', async () => {
    t.auth.defineRole('r', [{ action: 'read', subject: 'Ledger', conditions: { ref: 7 } }]);
    const em = orm.em.fork();
    expect(() => t.auth.accessibleBy(user, 'read', 'Ledger', { em })).to.throw(
      TypeError,
      /ref.*bigint column.*7, a number/,
    );
    const read = await t.auth
      .em(user)
      .find(Ledger, {})
      .catch((caught: unknown) => caught);
    expect(read)
      .to.be.instanceOf(TypeError)
      .with.property('message')
      .that.matches(/ref.*bigint column.*7, a number/);
    t.auth.defineRole('r', [{ action: 'read', subject: 'Ledger', conditions: { small: 7 } }]);
    em.create(Ledger, { id: 1, ref: 7n, small: 7, code: '7' });
    await em.flush();
    expect((await t.auth.em(user).find(Ledger, {})).map((row) => row.id)).to.deep.equal([1]);
  });
});
