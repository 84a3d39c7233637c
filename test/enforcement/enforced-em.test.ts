/**
 * What `req.em` is, beyond what the property (test/properties/enforced-em.test.ts) generates: the
 * ways around it that are closed (a `filters` option, a fork, a transaction, raw SQL, the query
 * builder, native writes), what is secure by default and what `public` opens, a changed
 * many-to-many collection (more in enforced-writes.test.ts), and `req.em` itself on a guarded
 * request. SQLite in memory; MikroORM 7's `stream` on PostgreSQL.
 */
import { defineEntity, MikroORM, type InferEntity } from '@mikro-orm/core';
import { expect } from 'chai';
import request from 'supertest';
import { PostgreSqlDriver } from '@mikro-orm/postgresql';
import { AuthError } from '../../src/errors.js';
import { createTestApp, PASSWORD, type TestApp } from '../helpers/app.js';
import { createPostgresDatabase, describePostgres } from '../helpers/services.js';
import {
  createSchema,
  describeOnMikroOrm7,
  MIKRO_ORM_MAJOR,
  SQL_LAYER_METHOD,
  sqliteDefaults,
} from '../helpers/orm.js';

const p = defineEntity.properties;
const Tag = defineEntity({
  name: 'Tag',
  tableName: 'enf_tags',
  properties: { id: p.integer().primary(), name: p.string() },
});
const Country = defineEntity({
  name: 'Country',
  tableName: 'enf_countries',
  properties: { id: p.integer().primary(), name: p.string() },
});
const Note = defineEntity({
  name: 'Note',
  tableName: 'enf_notes',
  properties: {
    id: p.integer().primary(),
    owner_id: p.integer(),
    title: p.string(),
    country: () => p.manyToOne(Country).nullable(),
    tags: () => p.manyToMany(Tag),
  },
});
type Note = InferEntity<typeof Note>;

describe('req.em', () => {
  let t: TestApp;
  let orm: MikroORM;
  const ada = { id: 1, email: 'ada@example.com', roles: ['writer'] };

  before(async () => {
    t = await createTestApp({ SERVICE_AUTH_RATE_LIMIT_ENABLED: false }, (app, auth) => {
      app.get('/twice', auth.loginRequired, (req, res) =>
        res.json({ same: req.em === req.em && auth.em(req) === req.em && auth.em(req.user!) === req.em }),
      );
      app.get('/notes', auth.loginRequired, async (req, res) =>
        res.json({ notes: (await req.em.find(Note, {})).map((note) => note.id) }),
      );
    });
    orm = await MikroORM.init({
      ...sqliteDefaults(':memory:'),
      entities: [Note, Tag, Country],
      debug: false,
    });
    await createSchema(orm);
    t.auth.defineRole('writer', [
      { action: ['read', 'update'], subject: 'Note', conditions: { owner_id: '${user.id}' } },
      { action: 'read', subject: 'Tag', conditions: { name: 'red' } },
    ]);
    const em = orm.em.fork();
    em.create(Country, { id: 1, name: 'France' });
    em.create(Tag, { id: 1, name: 'red' });
    em.create(Tag, { id: 2, name: 'blue' });
    em.create(Note, { id: 1, owner_id: 1, title: 'mine', country: 1, tags: [2] });
    em.create(Note, { id: 2, owner_id: 2, title: 'theirs' });
    await em.flush();
  });
  after(async () => {
    await t.auth.close();
    await orm.close();
  });

  it('before auth.enforce: auth.em and req.em say to register the ORM', async () => {
    expect(() => t.auth.em(ada)).to.throw(TypeError, /auth\.enforce\(orm\)/);
    const user = await t.auth.users.create({ email: 'early@example.com', password: PASSWORD });
    const { token } = await t.auth.tokens.create(user, { name: 'test' });
    await request(t.app).get('/notes').set('Authorization', `Bearer ${token}`).expect(500);
    expect(t.log.text()).to.match(/req\.em: register your MikroORM first, with auth\.enforce\(orm\)/);
    t.auth.enforce(orm, { public: [Country] });
  });

  it('is one EntityManager per request, the same as auth.em(req)', async () => {
    const user = await t.auth.users.create({ email: 'twice@example.com', password: PASSWORD });
    const { token } = await t.auth.tokens.create(user, { name: 'test' });
    expect((await request(t.app).get('/twice').set('Authorization', `Bearer ${token}`).expect(200)).body).to.deep.equal(
      { same: true },
    );
  });

  it('no filters option, fork or transaction reads around it', async () => {
    const em = t.auth.em(ada);
    expect((await em.find(Note, {}, { filters: false })).map((note) => note.id)).to.deep.equal([1]);
    expect((await em.find(Note, {}, { filters: {} })).map((note) => note.id)).to.deep.equal([1]);
    expect(await em.fork().findOne(Note, 2)).to.equal(null);
    expect(await em.transactional((inner) => inner.findOne(Note, 2))).to.equal(null);
    expect(await em.count(Note)).to.equal(1);
    expect((await em.findAndCount(Note, {}))[1]).to.equal(1);
    const error = await em.findOneOrFail(Note, 2).catch((caught: unknown) => caught);
    expect(error).to.be.instanceOf(AuthError).with.property('code', 'not_found');
  });

  describeOnMikroOrm7("MikroORM 7's countBy and stream", 'em.countBy() and em.stream() are new in MikroORM 7', () => {
    type SevenOnly = {
      countBy(entity: unknown, field: string): Promise<Record<string, number>>;
      stream(entity: unknown): AsyncIterable<Note>;
    };

    it('countBy counts only the rows the ability may read', async () => {
      const em = t.auth.em(ada) as unknown as SevenOnly;
      expect(await em.countBy(Note, 'owner_id')).to.deep.equal({ 1: 1 });
    });

    // node:sqlite's statements cannot be iterated, so MikroORM 7 streams on PostgreSQL only.
    describePostgres('stream', () => {
      let database: { url: string; drop(): Promise<void> };
      let pgOrm: MikroORM;
      let other: TestApp;

      before(async () => {
        database = await createPostgresDatabase();
        pgOrm = await MikroORM.init({
          driver: PostgreSqlDriver,
          clientUrl: database.url,
          entities: [Note, Tag, Country],
        });
        await createSchema(pgOrm);
        const em = pgOrm.em.fork();
        em.create(Note, { id: 1, owner_id: 1, title: 'mine' });
        em.create(Note, { id: 2, owner_id: 2, title: 'theirs' });
        await em.flush();
        other = await createTestApp({ SERVICE_AUTH_RATE_LIMIT_ENABLED: false });
        other.auth.defineRole('writer', [{ action: 'read', subject: 'Note', conditions: { owner_id: '${user.id}' } }]);
        other.auth.enforce(pgOrm, { public: [Country] });
      });
      after(async () => {
        await other?.auth.close();
        await pgOrm?.close();
        await database?.drop();
      });

      it('streams only the rows the ability may read', async () => {
        const streamed: number[] = [];
        for await (const note of (other.auth.em(ada) as unknown as SevenOnly).stream(Note)) streamed.push(note.id);
        expect(streamed).to.deep.equal([1]);
      });
    });
  });

  it('in a transaction: the EntityManager handed to the callback refuses the connection, and its flush is checked', async () => {
    const em = t.auth.em(ada);
    await em.transactional((inner) => {
      const connection = () => (inner as unknown as { getConnection(): unknown }).getConnection();
      expect(connection).to.throw(TypeError, /req\.em\.getConnection\(\) cannot be checked/);
    });
    await em.transactional(async (inner) => {
      (await inner.findOneOrFail(Note, 1)).title = 'in a transaction';
    });
    expect((await orm.em.fork().findOneOrFail(Note, 1)).title).to.equal('in a transaction');
    const refused = await em
      .transactional(async (inner) => {
        (await inner.findOneOrFail(Note, 1)).title = 'kept?';
        inner.getReference(Note, 2).title = 'not theirs';
      })
      .catch((caught: unknown) => caught);
    expect(refused).to.be.instanceOf(AuthError).with.property('code', 'forbidden');
    const rows = await orm.em.fork().find(Note, {}, { orderBy: { id: 'asc' } });
    expect(rows.map((row) => row.title)).to.deep.equal(['in a transaction', 'theirs']);
  });

  it('lazy collections and references load only what the ability may read', async () => {
    const em = t.auth.em(ada);
    const note = await em.findOneOrFail(Note, 1);
    expect((await note.tags.init()).getItems()).to.deep.equal([]);
    expect(await em.findOne(Tag, 2)).to.equal(null);
    const blue = em.getReference(Tag, 2, { wrapped: true });
    expect(await blue.load()).to.equal(null);
    expect(await em.count(Tag)).to.equal(1);
  });

  it('what it cannot check is a TypeError naming the way out', () => {
    const em = t.auth.em(ada) as unknown as Record<string, (...args: unknown[]) => unknown>;
    const names = ['execute', 'getConnection', SQL_LAYER_METHOD, 'createQueryBuilder', 'qb'];
    if (MIKRO_ORM_MAJOR >= 7) names.push('callRoutine'); // a stored routine, new in 7
    names.push('nativeUpdate', 'nativeDelete', 'insert', 'insertMany', 'upsert');
    for (const name of names) {
      const refusal = new RegExp(`req\\.em\\.${name}\\(\\) cannot be checked.*application's own EntityManager`);
      expect(() => em[name]!('Note', {}), name).to.throw(TypeError, refusal);
    }
  });

  it('an entity no rule names is neither read nor written; a public one is both', async () => {
    const em = t.auth.em(ada);
    expect(await em.find(Tag, {})).to.have.length(1);
    const other = t.auth.em({ id: 3, email: 'zed@example.com', roles: [] });
    expect(await other.find(Tag, {}), 'no rule names Tag for zed').to.deep.equal([]);
    expect((await other.find(Country, {})).map((country) => country.name)).to.deep.equal(['France']);
    other.create(Country, { id: 2, name: 'Chile' });
    await other.flush();
    other.create(Note, { id: 3, owner_id: 3, title: 'new' });
    const refused = await other.flush().catch((caught: unknown) => caught);
    const refusal = /You may not create the (id|owner_id|title) of this Note/;
    expect(refused).to.be.instanceOf(AuthError).with.property('message').that.matches(refusal);
    expect(await orm.em.fork().count(Note)).to.equal(2);
  });

  it('a related row it may read is populated, its references are checked; a many-to-many item added must be readable', async () => {
    const em = t.auth.em(ada);
    const note = await em.findOneOrFail(Note, 1, { populate: ['country', 'tags'] });
    expect(note.country?.name).to.equal('France');
    expect(note.tags.getItems(), 'the blue tag is hidden').to.deep.equal([]);
    note.title = 'renamed';
    await em.flush();
    note.tags.add(em.getReference(Tag, 1));
    await em.flush();
    const tags = async (): Promise<number[]> =>
      (await orm.em.fork().findOneOrFail(Note, 1, { populate: ['tags'] })).tags
        .getItems()
        .map((tag) => tag.id)
        .sort();
    expect(await tags(), 'the hidden blue tag stays').to.deep.equal([1, 2]);
    note.tags.add(em.getReference(Tag, 2));
    note.title = 'renamed again';
    const error = await em.flush().catch((caught: unknown) => caught);
    expect(error)
      .to.be.instanceOf(AuthError)
      .with.property('message')
      .that.matches(/Note.*Tag that you cannot read/);
    expect((await orm.em.fork().findOneOrFail(Note, 1)).title).to.equal('renamed');
  });
});
