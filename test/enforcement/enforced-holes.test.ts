/**
 * Ways around req.em a review found, each closed: a body that sets the primary key, a write by a
 * key that names no row, collection operators and raw fragments in a where clause, a RequestContext
 * or a transaction of the application's em around it, an explicit result-cache key, the driver, the
 * transaction's connection, and a rule value of the wrong type. SQLite in memory.
 */
import { defineEntity, LockMode, MikroORM, raw, RequestContext, type InferEntity } from '@mikro-orm/core';
import { expect } from 'chai';
import { AuthError } from '../../src/errors.js';
import { createTestApp, type TestApp } from '../helpers/app.js';
import { createSchema, sqliteDefaults } from '../helpers/orm.js';

const p = defineEntity.properties;
const Country = defineEntity({
  name: 'Country',
  tableName: 'hole_countries',
  properties: { id: p.integer().primary(), name: p.string(), notes: () => p.oneToMany(Note).mappedBy('country') },
});
const Tag = defineEntity({
  name: 'Tag',
  tableName: 'hole_tags',
  properties: { id: p.integer().primary(), name: p.string() },
});
const Note = defineEntity({
  name: 'Note',
  tableName: 'hole_notes',
  properties: {
    id: p.integer().primary(),
    owner_id: p.integer(),
    title: p.string(),
    country: () => p.manyToOne(Country).nullable(),
    tags: () => p.manyToMany(Tag),
  },
});
type Note = InferEntity<typeof Note>;

const forbidden = (error: unknown): void => {
  expect(error).to.be.instanceOf(AuthError).with.property('code', 'forbidden');
};

describe('req.em: the ways around it a review found are closed', () => {
  let t: TestApp;
  let orm: MikroORM;
  // Reads notes of France, may retitle any note; reads and updates its own notes.
  const titler = { id: 5, email: 'titler@example.com', roles: ['titler'] };
  const ada = { id: 1, email: 'ada@example.com', roles: ['writer'] };

  const titles = async (): Promise<Record<number, string>> => {
    const rows = await orm.em.fork().find(Note, {}, { orderBy: { id: 'asc' } });
    return Object.fromEntries(rows.map((row) => [row.id, `${row.owner_id}:${row.title}`]));
  };

  before(async () => {
    t = await createTestApp({ SERVICE_AUTH_RATE_LIMIT_ENABLED: false });
    orm = await MikroORM.init({
      ...sqliteDefaults(':memory:'),
      entities: [Note, Country, Tag],
      debug: false,
    });
    await createSchema(orm);
    t.auth.defineRole('titler', [
      { action: 'read', subject: 'Note', conditions: { 'country.name': 'France' } },
      { action: 'update', subject: 'Note', fields: ['title'] },
    ]);
    t.auth.defineRole('writer', [
      { action: ['read', 'update', 'delete'], subject: 'Note', conditions: { owner_id: '${user.id}' } },
    ]);
    t.auth.enforce(orm, { public: [Country] });
    const em = orm.em.fork();
    em.create(Country, { id: 1, name: 'France' });
    em.create(Country, { id: 2, name: 'Spain' });
    em.create(Tag, { id: 1, name: 'red' });
    em.create(Tag, { id: 2, name: 'blue' });
    em.create(Note, { id: 1, owner_id: 1, title: 'mine', country: 1, tags: [1, 2] });
    em.create(Note, { id: 2, owner_id: 2, title: 'theirs', country: 1 });
    em.create(Note, { id: 3, owner_id: 2, title: 'spanish', country: 2 });
    await em.flush();
  });
  after(async () => {
    await t.auth.close();
    await orm.close();
  });

  it('a body that sets the primary key is refused, and nothing is written', async () => {
    const before = await titles();
    const em = t.auth.em(titler);
    const note = await em.findOneOrFail(Note, 1);
    em.assign(note, { id: 70, owner_id: 7 });
    forbidden(await em.flush().catch((caught: unknown) => caught));
    const merged = t.auth.em(titler);
    const hidden = merged.merge(Note, { id: 3, owner_id: 2, title: 'spanish' });
    hidden.id = 61;
    hidden.title = 'overwritten';
    forbidden(await merged.flush().catch((caught: unknown) => caught));
    const own = t.auth.em(ada);
    (await own.findOneOrFail(Note, 1)).id = 71;
    forbidden(await own.flush().catch((caught: unknown) => caught));
    // A mere reference's new key MikroORM would drop, writing the rest by the old one: refused too.
    const referenced = t.auth.em(ada);
    referenced.assign(referenced.getReference(Note, 1), { id: 72, title: 'moved?' });
    forbidden(await referenced.flush().catch((caught: unknown) => caught));
    expect(await titles()).to.deep.equal(before);
  });

  it('an update or a delete by a key that names no row is refused', async () => {
    const em = t.auth.em(ada);
    em.getReference(Note, 99).title = 'nowhere';
    forbidden(await em.flush().catch((caught: unknown) => caught));
    const other = t.auth.em(ada);
    other.remove(other.getReference(Note, 98));
    forbidden(await other.flush().catch((caught: unknown) => caught));
  });

  it('$some and $none in a where clause range over the rows the ability may read; $every is a TypeError', async () => {
    const em = t.auth.em(ada);
    const countries = async (where: object): Promise<number[]> =>
      (await em.find(Country, where as never, { orderBy: { id: 'asc' } })).map((country) => country.id);
    // Country 1 holds ada's note 1 and note 2 (hidden from her); country 2, note 3 (hidden).
    expect(await em.count(Country, { notes: { $some: { title: 'theirs' } } })).to.equal(0);
    expect(await countries({ notes: { $some: { title: 'mine' } } })).to.deep.equal([1]);
    expect(await countries({ notes: { $some: {} } })).to.deep.equal([1]);
    expect(await countries({ notes: { $none: { title: 'theirs' } } })).to.deep.equal([1, 2]);
    expect(await countries({ notes: { $none: {} } })).to.deep.equal([2]);
    // MikroORM 6.6 reads a primary-key test under $every's negation against the outer table: refused, never answered wrongly.
    const every = await countries({ notes: { $every: { owner_id: 1 } } }).catch((error: unknown) => error);
    expect(every)
      .to.be.instanceOf(TypeError)
      .with.property('message')
      .that.matches(/\$every/);
    expect(await countries({ notes: { $none: { owner_id: { $ne: 1 } } } })).to.deep.equal([1, 2]);
    // Nested, through a relation and under $or.
    const nested = await em.find(Note, { $or: [{ country: { notes: { $some: { title: 'spanish' } } } }] });
    expect(nested).to.deep.equal([]);
    expect(
      (await em.find(Note, { country: { notes: { $some: { title: 'mine' } } } })).map((note) => note.id),
    ).to.deep.equal([1]);
    // The application's own em sees every row.
    const own = orm.em.fork();
    expect(await own.count(Country, { notes: { $some: { title: 'theirs' } } })).to.equal(1);
    expect(await own.count(Country, { notes: { $every: { owner_id: 1 } } })).to.equal(0);
  });

  it('raw() keys in a where clause are a TypeError', async () => {
    const em = t.auth.em(ada);
    const rawKey = em.find(Note, { [raw('1 = 1')]: [] } as never);
    expect(await rawKey.catch((caught: unknown) => caught))
      .to.be.instanceOf(TypeError)
      .with.property('message')
      .that.contains('raw()');
  });

  it('a RequestContext of the application em around req.em does not unbind it', async () => {
    const em = t.auth.em(ada);
    await RequestContext.create(orm.em, async () => {
      expect(await em.fork({ useContext: true }).findOne(Note, 2)).to.equal(null);
      expect(await em.count(Note)).to.equal(1);
    });
  });

  // On MikroORM 7 SQLite has one connection, which the application's transaction holds: req.em outside it would wait forever.
  it('a transaction of the application em around req.em does not unbind it: req.em joins it', async () => {
    const em = t.auth.em(ada);
    await orm.em.transactional(async () => {
      expect(await em.findOne(Note, 2)).to.equal(null);
      expect(await em.fork({ useContext: true }).count(Note)).to.equal(1);
      const note = await em.findOneOrFail(Note, 1);
      em.getReference(Note, 2).title = 'not theirs';
      note.title = 'kept?';
      forbidden(await em.flush().catch((caught: unknown) => caught));
    });
    expect((await titles())[2]).to.equal('2:theirs');
  });

  it('an explicit result-cache key is a TypeError; cache: true is kept apart by ability', async () => {
    const em = t.auth.em(ada);
    const keyed = em.find(Note, {}, { cache: ['notes', 60_000] });
    expect(await keyed.catch((caught: unknown) => caught))
      .to.be.instanceOf(TypeError)
      .with.property('message')
      .that.contains('cache');
    const counted = em.count(Note, {}, { cache: ['count', 60_000] });
    expect(await counted.catch((caught: unknown) => caught)).to.be.instanceOf(TypeError);
    const bob = { id: 2, email: 'bob@example.com', roles: ['writer'] };
    expect((await em.find(Note, {}, { cache: true })).map((note) => note.id)).to.deep.equal([1]);
    expect(
      (await t.auth.em(bob).find(Note, {}, { cache: true, orderBy: { id: 'asc' } })).map((note) => note.id),
    ).to.deep.equal([2, 3]);
    expect((await t.auth.em(ada).find(Note, {}, { cache: true })).map((note) => note.id)).to.deep.equal([1]);
    // The rows of a populated relation: one ability's are not another's, whatever the root's condition.
    for (const color of ['red', 'blue']) {
      t.auth.defineRole(color, [
        { action: 'read', subject: 'Note' },
        { action: 'read', subject: 'Tag', conditions: { name: color } },
      ]);
    }
    const tagsOf = async (role: string): Promise<string[]> => {
      const em = t.auth.em({ id: 1, email: 'ada@example.com', roles: [role] });
      const note = await em.findOneOrFail(Note, 1, { populate: ['tags'], cache: true });
      return note.tags.getItems().map((tag) => tag.name);
    };
    expect(await tagsOf('red')).to.deep.equal(['red']);
    expect(await tagsOf('blue')).to.deep.equal(['blue']);
    // A condition that follows a relation is a subquery: keyed by it too.
    t.auth.defineRole('french', [
      { action: 'read', subject: 'Note', conditions: { 'country.name': 'France', owner_id: '${user.id}' } },
    ]);
    const french = (id: number) => t.auth.em({ id, email: `french${id}@example.com`, roles: ['french'] });
    expect((await french(1).find(Note, {}, { cache: true })).map((note) => note.id)).to.deep.equal([1]);
    expect((await french(2).find(Note, {}, { cache: true })).map((note) => note.id)).to.deep.equal([2]);
    expect(await french(2).count(Note, {}, { cache: true })).to.equal(1);
    expect(await french(3).count(Note, {}, { cache: true })).to.equal(0);
  });

  it("the driver's reads and writes are a TypeError, through getRepository too; req.em still reads and flushes", async () => {
    const em = t.auth.em(ada);
    const drivers = [em.getDriver(), em.getRepository(Note).getEntityManager().getDriver()] as unknown as Record<
      string,
      () => unknown
    >[];
    for (const driver of drivers) {
      for (const name of [
        'find',
        'findOne',
        'count',
        'execute',
        'nativeUpdate',
        'nativeDelete',
        'nativeInsert',
        'getConnection',
      ]) {
        expect(() => driver[name]!(), name).to.throw(
          TypeError,
          new RegExp(`req\\.em\\.getDriver\\(\\)\\.${name}\\(\\) cannot be checked`),
        );
      }
    }
    const note = await em.findOneOrFail(Note, 1, { populate: ['country'] });
    expect(note.country?.name).to.equal('France');
    note.title = 'through the guard';
    await em.flush();
    expect((await titles())[1]).to.equal('1:through the guard');
  });

  it("the transaction's connection is a TypeError without row-level security; MikroORM still uses it", async () => {
    t.auth.defineRole('tagged-writer', [
      { action: ['read', 'update'], subject: 'Note', conditions: { owner_id: '${user.id}' } },
      { action: 'read', subject: 'Tag' },
    ]);
    const em = t.auth.em({ ...ada, roles: ['tagged-writer'] });
    // A many-to-many loaded (its pivot rows) and a row locked in a transaction: MikroORM asks for it itself.
    await em.transactional(async (inner) => {
      const note = await inner.findOneOrFail(Note, 1, { populate: ['tags'], strategy: 'select-in' });
      expect(note.tags.getItems().map((tag) => tag.name)).to.have.members(['red', 'blue']);
      await inner.lock(note, LockMode.PESSIMISTIC_WRITE);
      note.title = 'in a transaction';
    });
    expect((await titles())[1]).to.equal('1:in a transaction');
    let handed: unknown = 'not asked';
    const refused = await em
      .transactional(async (inner) => {
        const note = await inner.findOneOrFail(Note, 1);
        note.title = 'beside raw SQL';
        handed = inner.getTransactionContext();
      })
      .catch((error: unknown) => error);
    expect(refused).to.be.instanceOf(TypeError);
    expect((refused as Error).message).to.match(/getTransactionContext\(\) hands out the transaction's connection/);
    expect(handed).to.equal('not asked');
    // The refusal rolled the transaction back: nothing of it was written.
    expect((await titles())[1]).to.equal('1:in a transaction');
  });

  it('a pessimistic lock through req.em is taken only on a row the ability may read', async () => {
    const em = t.auth.em(ada);
    // Note 2 is another owner's: MikroORM would lock it by its key alone.
    const refused = await em.transactional((inner) =>
      inner.lock(inner.getReference(Note, 2), LockMode.PESSIMISTIC_WRITE).then(
        () => 'locked',
        (error: unknown) => error,
      ),
    );
    expect(refused).to.be.instanceOf(AuthError).with.property('code', 'not_found');
    const locked = await em.transactional(async (inner) => {
      await inner.lock(inner.getReference(Note, 1), LockMode.PESSIMISTIC_WRITE);
      return 'locked';
    });
    expect(locked).to.equal('locked');
  });

  it('a rule value of the wrong type for its column is a TypeError through req.em, as through accessibleBy', async () => {
    t.auth.defineRole('typo', [{ action: 'read', subject: 'Note', conditions: { owner_id: 'one' } }]);
    const asked = t.auth.em({ id: 9, email: 'typo@example.com', roles: ['typo'] }).find(Note, {});
    expect(await asked.catch((caught: unknown) => caught))
      .to.be.instanceOf(TypeError)
      .with.property('message')
      .that.match(/owner_id/);
  });

  it('auth.enforce a second time is refused, saying it was called', () => {
    expect(() => t.auth.enforce(orm)).to.throw(TypeError, /auth\.enforce\(orm\).*once/);
  });
});
