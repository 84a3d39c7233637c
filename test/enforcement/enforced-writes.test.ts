/**
 * req.em's writes where the row req.em holds is not the whole story: a row another writer changed
 * since req.em read it, many-to-many collections, cascades; and raw() fragments as where values.
 * SQLite in memory.
 */
import { defineEntity, MikroORM, raw, sql, type InferEntity } from '@mikro-orm/core';
import { expect } from 'chai';
import { AuthError } from '../../src/errors.js';
import { createTestApp, type TestApp } from '../helpers/app.js';
import { createSchema, sqliteDefaults } from '../helpers/orm.js';

const p = defineEntity.properties;
const Label = defineEntity({
  name: 'Label',
  tableName: 'write_labels',
  properties: { id: p.integer().primary(), name: p.string(), owner_id: p.integer() },
});
const Memo = defineEntity({
  name: 'Memo',
  tableName: 'write_memos',
  properties: {
    id: p.integer().primary(),
    owner_id: p.integer(),
    title: p.string(),
    labels: () => p.manyToMany(Label),
  },
});
type Memo = InferEntity<typeof Memo>;
const Folder = defineEntity({
  name: 'Folder',
  tableName: 'write_folders',
  properties: { id: p.integer().primary(), owner_id: p.integer(), sheets: () => p.oneToMany(Sheet).mappedBy('folder') },
});
// Deleted with their folder by the database; pins lose it (a nullable reference's default, set null).
const Sheet = defineEntity({
  name: 'Sheet',
  tableName: 'write_sheets',
  properties: {
    id: p.integer().primary(),
    owner_id: p.integer(),
    folder: () => p.manyToOne(Folder).deleteRule('cascade'),
  },
});
const Pin = defineEntity({
  name: 'Pin',
  tableName: 'write_pins',
  properties: { id: p.integer().primary(), owner_id: p.integer(), folder: () => p.manyToOne(Folder).nullable() },
});

const refusal = (error: unknown): AuthError => {
  expect(error).to.be.instanceOf(AuthError).with.property('code', 'forbidden');
  return error as AuthError;
};

describe('req.em: writes are decided on the rows as they are', () => {
  let t: TestApp;
  let orm: MikroORM;
  const ada = { id: 1, email: 'ada@example.com', roles: ['writer'] };
  // Reads every memo and label; may change the title of a memo, nothing else.
  const titler = { id: 9, email: 'titler@example.com', roles: ['titler'] };

  const memo = async (id: number): Promise<string> => {
    const row = await orm.em.fork().findOneOrFail(Memo, id, { populate: ['labels'] });
    return `${row.owner_id}:${row.title}:${row.labels
      .getItems()
      .map((label) => label.id)
      .join(',')}`;
  };

  before(async () => {
    t = await createTestApp({ SERVICE_AUTH_RATE_LIMIT_ENABLED: false });
    orm = await MikroORM.init({
      ...sqliteDefaults(':memory:'),
      entities: [Memo, Label, Folder, Sheet, Pin],
      debug: false,
    });
    await createSchema(orm);
    t.auth.defineRole('writer', [
      { action: ['read', 'create', 'update', 'delete'], subject: 'Memo', conditions: { owner_id: '${user.id}' } },
      { action: 'read', subject: 'Label', conditions: { owner_id: '${user.id}' } },
      {
        action: ['read', 'create', 'update', 'delete'],
        subject: ['Folder', 'Sheet', 'Pin'],
        conditions: { owner_id: '${user.id}' },
      },
    ]);
    t.auth.defineRole('titler', [
      { action: 'read', subject: ['Memo', 'Label'] },
      { action: 'update', subject: 'Memo', fields: ['title'] },
    ]);
    t.auth.enforce(orm);
    const em = orm.em.fork();
    em.create(Label, { id: 1, name: 'mine', owner_id: 1 });
    em.create(Label, { id: 2, name: 'theirs', owner_id: 2 });
    em.create(Memo, { id: 1, owner_id: 1, title: 'first', labels: [1] });
    em.create(Memo, { id: 2, owner_id: 1, title: 'second' });
    em.create(Memo, { id: 3, owner_id: 2, title: 'theirs', labels: [2] });
    for (const id of [1, 2, 3, 4]) em.create(Folder, { id, owner_id: 1 });
    em.create(Sheet, { id: 1, owner_id: 1, folder: 1 });
    em.create(Sheet, { id: 2, owner_id: 2, folder: 2 });
    em.create(Pin, { id: 1, owner_id: 1, folder: 3 });
    em.create(Pin, { id: 2, owner_id: 2, folder: 4 });
    await em.flush();
  });
  after(async () => {
    await t.auth.close();
    await orm.close();
  });

  it('a row another writer moved out of reach since req.em read it is not written', async () => {
    const em = t.auth.em(ada);
    const [first, second] = await em.find(Memo, { id: [1, 2] }, { orderBy: { id: 'asc' } });
    // Meanwhile, the application gives memo 1 to user 2.
    await orm.em.fork().nativeUpdate(Memo, 1, { owner_id: 2 });
    first!.title = 'first, edited';
    second!.title = 'second, edited';
    // Decided on as req.em read them; the UPDATE finds memo 1 no longer as it was, and memo 1 as it is is refused.
    const error = await em.flush().catch((caught: unknown) => caught);
    expect(error).to.be.instanceOf(AuthError).with.property('code', 'forbidden');
    expect([await memo(1), await memo(2)]).to.deep.equal(['2:first:1', '1:second:']);
    await orm.em.fork().nativeUpdate(Memo, 1, { owner_id: 1 });
    // The row as it is is the user's again: the same change is written.
    const again = t.auth.em(ada);
    (await again.findOneOrFail(Memo, 2)).title = 'second, edited';
    await again.flush();
    expect(await memo(2)).to.equal('1:second, edited:');
  });

  it('a deleted row another writer moved out of reach is not deleted', async () => {
    const em = t.auth.em(ada);
    const second = await em.findOneOrFail(Memo, 2);
    await orm.em.fork().nativeUpdate(Memo, 2, { owner_id: 2 });
    em.remove(second);
    expect(await em.flush().catch((caught: unknown) => caught)).to.have.property('code', 'forbidden');
    expect(await memo(2)).to.equal('2:second, edited:');
    await orm.em.fork().nativeUpdate(Memo, 2, { owner_id: 1 });
  });

  it('raw() and sql fragments as where values or keys are a TypeError naming the way out', async () => {
    const em = t.auth.em(ada);
    const wheres = [
      { title: raw('title') },
      { owner_id: { $in: [raw('owner_id')] } },
      { $or: [{ title: sql`title` }] },
      { [raw('1 = 1')]: [] },
    ];
    for (const where of wheres) {
      const error = await em.find(Memo, where as never).catch((caught: unknown) => caught);
      expect(error, JSON.stringify(Object.keys(where)))
        .to.be.instanceOf(TypeError)
        .with.property('message')
        .that.matches(/raw\(\).*application's own EntityManager/);
    }
    const counted = await em.count(Memo, { title: raw('title') } as never).catch((caught: unknown) => caught);
    expect(counted).to.be.instanceOf(TypeError);
    // The application's own em takes them.
    expect(await orm.em.fork().count(Memo, { title: raw('title') } as never)).to.equal(3);
  });

  it('adding or removing many-to-many items is an update of the owner on that field, with readable items only', async () => {
    const em = t.auth.em(ada);
    const [first, second] = await em.find(Memo, { id: [1, 2] }, { populate: ['labels'], orderBy: { id: 'asc' } });
    second!.labels.add(em.getReference(Label, 1));
    first!.labels.removeAll();
    await em.flush();
    expect([await memo(1), await memo(2)]).to.deep.equal(['1:first:', '1:second, edited:1']);
    // An item she may not read: refused, and nothing of the flush is written.
    first!.labels.add(em.getReference(Label, 2));
    first!.title = 'first, relabelled';
    const error = refusal(await em.flush().catch((caught: unknown) => caught));
    expect(error.message).to.match(/labels of this Memo: names a Label that you cannot read/);
    expect(await memo(1)).to.equal('1:first:');
    // Another user's memo, merged as if it were hers: decided on the row as it is, which she may not update.
    const other = t.auth.em(ada);
    other.merge(Memo, { id: 3, owner_id: 1, title: 'theirs' }).labels.add(other.getReference(Label, 1));
    expect(refusal(await other.flush().catch((caught: unknown) => caught)).message).to.contain(
      'update the labels of this Memo',
    );
    expect(await memo(3)).to.equal('2:theirs:2');
  });

  it('the field decides: a user who may only retitle may not relabel; a new owner needs create on it', async () => {
    const em = t.auth.em(titler);
    const third = await em.findOneOrFail(Memo, 3, { populate: ['labels'] });
    third.labels.add(em.getReference(Label, 1));
    expect(refusal(await em.flush().catch((caught: unknown) => caught)).message).to.contain(
      'update the labels of this Memo',
    );
    third.labels.remove(em.getReference(Label, 1));
    third.title = 'retitled';
    await em.flush();
    expect(await memo(3)).to.equal('2:retitled:2');
    const creator = t.auth.em(ada);
    creator.create(Memo, { id: 4, owner_id: 1, title: 'new', labels: [1] });
    await creator.flush();
    expect(await memo(4)).to.equal('1:new:1');
    const hidden = t.auth.em(ada);
    hidden.create(Memo, { id: 5, owner_id: 1, title: 'new', labels: [2] });
    refusal(await hidden.flush().catch((caught: unknown) => caught));
    expect(await orm.em.fork().count(Memo, 5)).to.equal(0);
  });

  it('a delete the database would cascade to rows the ability may not delete or change is refused', async () => {
    const folders = async (): Promise<number[]> =>
      (await orm.em.fork().find(Folder, {}, { orderBy: { id: 'asc' } })).map((row) => row.id);
    // Folder 1 holds her own sheet, deleted with it by the database; folder 3, her own pin, which loses it.
    const em = t.auth.em(ada);
    em.remove(em.getReference(Folder, 1));
    em.remove(em.getReference(Folder, 3));
    await em.flush();
    expect(await folders()).to.deep.equal([2, 4]);
    expect(await orm.em.fork().count(Sheet, 1)).to.equal(0);
    expect((await orm.em.fork().findOneOrFail(Pin, 1)).folder).to.equal(null);
    // Folder 2 holds user 2's sheet; folder 4, user 2's pin: neither is deleted.
    for (const [id, why] of [
      [2, /would delete a Sheet that you may not delete/],
      [4, /would set the folder of a Pin that you may not update/],
    ] as const) {
      const other = t.auth.em(ada);
      other.remove(other.getReference(Folder, id));
      expect(refusal(await other.flush().catch((caught: unknown) => caught)).message).to.match(why);
    }
    expect(await folders()).to.deep.equal([2, 4]);
    expect(await orm.em.fork().count(Sheet, 2)).to.equal(1);
  });

  it('a one-to-many collection set without being loaded is a TypeError', async () => {
    const em = t.auth.em(ada);
    const folder = await em.findOneOrFail(Folder, 2);
    // MikroORM would write it as one statement: every other sheet of the folder is moved out of it (user 2's sheet too).
    folder.sheets.set([em.create(Sheet, { id: 9, owner_id: 1, folder })]);
    const error = await em.flush().catch((caught: unknown) => caught);
    expect(error)
      .to.be.instanceOf(TypeError)
      .with.property('message')
      .that.contains('Folder.sheets set without being loaded');
    expect(await orm.em.fork().findOneOrFail(Sheet, 2)).to.have.nested.property('folder.id', 2);
    expect(await orm.em.fork().count(Sheet, 9)).to.equal(0);
  });
});
