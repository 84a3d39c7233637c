/**
 * req.em's writes of rows it read itself: decided on as it read them, with no read before the
 * write, and written only where the row still holds, in the columns the rules read, what was
 * decided on (src/enforcement/conditional-writes.ts). On SQLite in memory, and on PostgreSQL when
 * SERVICE_AUTH_TEST_DATABASE_URL is set, where another transaction changes a row while req.em's
 * write waits for it.
 */
import { subject } from '@casl/ability';
import { defineEntity, MikroORM, type Options } from '@mikro-orm/core';
import { expect } from 'chai';
import fc from 'fast-check';
import { AuthError } from '../../src/errors.js';
import { createTestApp, type TestApp } from '../helpers/app.js';
import { createSchema, onStatement, sqliteDefaults } from '../helpers/orm.js';
import { createPostgresDatabase, describePostgres } from '../helpers/services.js';

const p = defineEntity.properties;
const Ticket = defineEntity({
  name: 'Ticket',
  tableName: 'conditional_tickets',
  properties: {
    id: p.integer().primary(),
    owner_id: p.integer(),
    team: p.string(),
    title: p.string(),
    note: p.string().nullable(),
  },
});

// Her own tickets of team red: read, retitle, delete. The rules read owner_id and team, never title or note.
const MEMBER = [
  { action: ['read', 'delete'], subject: 'Ticket', conditions: { owner_id: '${user.id}', team: 'red' } },
  { action: 'update', subject: 'Ticket', fields: ['title'], conditions: { owner_id: '${user.id}', team: 'red' } },
];

// Their own tickets of team red or green.
const CREW = [
  {
    action: ['read', 'update', 'delete'],
    subject: 'Ticket',
    conditions: { owner_id: '${user.id}', team: { $in: ['red', 'green'] } },
  },
];

// Every ticket readable; their own editable.
const EDITOR = [
  { action: 'read', subject: 'Ticket' },
  { action: 'update', subject: 'Ticket', conditions: { owner_id: '${user.id}' } },
];

/** The error a flush ended with, or undefined. */
const failure = (flush: Promise<void>): Promise<unknown> =>
  flush.then(
    () => undefined,
    (caught: unknown) => caught,
  );

function suite(open: () => Promise<{ options: Options; drop(): Promise<void> }>, concurrent = false): void {
  let t: TestApp;
  let orm: MikroORM;
  let drop: () => Promise<void>;
  let statements: string[] = [];
  const ada = { id: 1, email: 'ada@example.com', roles: ['member'] };

  const rows = async (): Promise<string[]> =>
    (await orm.em.fork().find(Ticket, {}, { orderBy: { id: 'asc' } })).map(
      (row) => `${row.id}:${row.owner_id}:${row.team}:${row.title}`,
    );

  before(async () => {
    t = await createTestApp({ SERVICE_AUTH_RATE_LIMIT_ENABLED: false });
    const database = await open();
    drop = database.drop;
    orm = await MikroORM.init({ ...database.options, entities: [Ticket], debug: false });
    await createSchema(orm);
    t.auth.defineRole('member', MEMBER);
    t.auth.defineRole('crew', CREW);
    t.auth.defineRole('editor', EDITOR);
    t.auth.enforce(orm);
    await onStatement(orm.em, (sql) => void statements.push(sql));
  });
  beforeEach(async () => {
    const em = orm.em.fork();
    await em.nativeDelete(Ticket, {});
    for (const id of [1, 2, 3]) await em.insert(Ticket, { id, owner_id: 1, team: 'red', title: `t${id}` });
    statements = [];
  });
  after(async () => {
    await orm?.close();
    await t?.auth.close();
    await drop?.();
  });

  it('a flush of rows it read runs no read: its UPDATE names the values decided on', async () => {
    const em = t.auth.em(ada);
    const tickets = await em.find(Ticket, {}, { orderBy: { id: 'asc' } });
    for (const ticket of tickets) ticket.title += ' edited';
    statements = [];
    await em.flush();
    const run = statements.filter((sql) => !/^(begin|commit|savepoint|release)/i.test(sql.trim()));
    expect(run, run.join('\n')).to.have.length(1);
    expect(run[0])
      .to.match(/^update/i)
      .and.match(/owner_id.*team|team.*owner_id/);
    expect(await rows()).to.deep.equal(['1:1:red:t1 edited', '2:1:red:t2 edited', '3:1:red:t3 edited']);
  });

  it('a row another writer moved out of reach meanwhile: 403 forbidden on the row as it is, and nothing of the flush is written', async () => {
    for (const count of [1, 3]) {
      // One row (MikroORM's single UPDATE) and three (its batch): the same answer.
      const em = t.auth.em(ada);
      const tickets = await em.find(Ticket, { id: { $lte: count } }, { orderBy: { id: 'asc' } });
      await orm.em.fork().nativeUpdate(Ticket, 1, { team: 'blue' });
      for (const ticket of tickets) ticket.title = 'edited';
      const error = await failure(em.flush());
      expect(error).to.be.instanceOf(AuthError).with.property('code', 'forbidden');
      expect((error as AuthError).message).to.equal('You may not update the title of this Ticket');
      expect(await rows()).to.deep.equal(['1:1:blue:t1', '2:1:red:t2', '3:1:red:t3']);
      await orm.em.fork().nativeUpdate(Ticket, 1, { team: 'red' });
    }
  });

  it('a row deleted meanwhile, and a delete of a row moved meanwhile: 403 forbidden, nothing written', async () => {
    const em = t.auth.em(ada);
    const tickets = await em.find(Ticket, {}, { orderBy: { id: 'asc' } });
    await orm.em.fork().nativeDelete(Ticket, 3);
    for (const ticket of tickets) ticket.title = 'edited';
    expect(await failure(em.flush()))
      .to.have.property('message')
      .that.equals('You may not update this Ticket: there is no such row');
    expect(await rows()).to.deep.equal(['1:1:red:t1', '2:1:red:t2']);
    const deleting = t.auth.em(ada);
    const doomed = await deleting.find(Ticket, {}, { orderBy: { id: 'asc' } });
    await orm.em.fork().nativeUpdate(Ticket, 2, { owner_id: 2 });
    for (const ticket of doomed) deleting.remove(ticket);
    expect(await failure(deleting.flush())).to.have.property('code', 'forbidden');
    expect(await rows()).to.deep.equal(['1:1:red:t1', '2:2:red:t2']);
    // Deleted meanwhile by another writer, while req.em deletes it and another: the row is not there to decide on.
    const late = t.auth.em(ada);
    const both = await late.find(Ticket, {}, { orderBy: { id: 'asc' } });
    await orm.em.fork().nativeDelete(Ticket, 1);
    for (const ticket of both) late.remove(ticket);
    expect(await failure(late.flush()))
      .to.have.property('message')
      .that.equals('You may not delete this Ticket: there is no such row');
    expect(await rows()).to.deep.equal(['2:2:red:t2']);
  });

  it('a row changed meanwhile where the rules read, yet still within reach: 409 row_changed, nothing written', async () => {
    const carol = { id: 1, email: 'carol@example.com', roles: ['crew'] };
    for (const action of ['update', 'delete']) {
      const em = t.auth.em(carol);
      const tickets = await em.find(Ticket, {}, { orderBy: { id: 'asc' } });
      // Team green is within the crew's reach too: the row is still theirs to change, but not as req.em read it.
      await orm.em.fork().nativeUpdate(Ticket, 2, { team: 'green' });
      for (const ticket of tickets) {
        if (action === 'update') ticket.title = 'edited';
        else em.remove(ticket);
      }
      const error = await failure(em.flush());
      expect(error, action).to.be.instanceOf(AuthError).with.property('code', 'row_changed');
      expect((error as AuthError).status).to.equal(409);
      expect(await rows()).to.deep.equal(['1:1:red:t1', '2:1:green:t2', '3:1:red:t3']);
      await orm.em.fork().nativeUpdate(Ticket, 2, { team: 'red' });
    }
  });

  it('a row out of reach as read, moved into reach meanwhile: decided on as it now is, and written', async () => {
    const editor = { id: 1, email: 'eve@example.com', roles: ['editor'] };
    await orm.em.fork().nativeUpdate(Ticket, 3, { owner_id: 2 });
    const em = t.auth.em(editor);
    const ticket = await em.findOneOrFail(Ticket, 3);
    await orm.em.fork().nativeUpdate(Ticket, 3, { owner_id: 1 });
    ticket.title = 'edited';
    await em.flush();
    expect((await rows())[2]).to.equal('3:1:red:edited');
    // Still out of reach as it now is: refused, nothing written.
    await orm.em.fork().nativeUpdate(Ticket, 3, { owner_id: 2 });
    const again = t.auth.em(editor);
    (await again.findOneOrFail(Ticket, 3)).title = 'again';
    expect(await failure(again.flush())).to.have.property('code', 'forbidden');
    expect((await rows())[2]).to.equal('3:2:red:edited');
  });

  it('a change meanwhile to a column the rules do not read does not stop the write', async () => {
    const em = t.auth.em(ada);
    const ticket = await em.findOneOrFail(Ticket, 2);
    await orm.em.fork().nativeUpdate(Ticket, 2, { note: 'from elsewhere' });
    ticket.title = 'edited';
    await em.flush();
    const row = await orm.em.fork().findOneOrFail(Ticket, 2);
    expect([row.title, row.note]).to.deep.equal(['edited', 'from elsewhere']);
  });

  it('rows it read and rows it was handed in one flush: the handed one is read and decided on as it is', async () => {
    const em = t.auth.em(ada);
    const read = await em.findOneOrFail(Ticket, 1);
    // Merged, not read: req.em decides on the row as the database holds it, which someone else moved to team blue.
    await orm.em.fork().nativeUpdate(Ticket, 3, { team: 'blue' });
    const handed = em.merge(Ticket, { id: 3, owner_id: 1, team: 'red', title: 't3' });
    read.title = 'edited';
    handed.title = 'edited';
    const error = await failure(em.flush());
    expect(error).to.be.instanceOf(AuthError).with.property('code', 'forbidden');
    expect(await rows()).to.deep.equal(['1:1:red:t1', '2:1:red:t2', '3:1:blue:t3']);
    // Back in reach: both written, the read one conditionally, the handed one after its read.
    await orm.em.fork().nativeUpdate(Ticket, 3, { team: 'red' });
    const again = t.auth.em(ada);
    (await again.findOneOrFail(Ticket, 1)).title = 'again';
    again.merge(Ticket, { id: 3, owner_id: 1, team: 'red', title: 't3' }).title = 'again';
    await again.flush();
    expect(await rows()).to.deep.equal(['1:1:red:again', '2:1:red:t2', '3:1:red:again']);
  });

  if (concurrent) {
    it('a row another transaction moves while the write waits for its lock: 403 forbidden', async () => {
      const em = t.auth.em(ada);
      const ticket = await em.findOneOrFail(Ticket, 1);
      ticket.title = 'edited';
      let flushing: Promise<unknown> | undefined;
      await orm.em.fork().transactional(async (other) => {
        await other.nativeUpdate(Ticket, 1, { team: 'blue' });
        // req.em's UPDATE waits for the row; PostgreSQL then applies its condition to the row as committed.
        flushing = failure(em.flush());
        await new Promise((resolve) => setTimeout(resolve, 200));
      });
      expect(await flushing)
        .to.be.instanceOf(AuthError)
        .with.property('code', 'forbidden');
      expect((await rows())[0]).to.equal('1:1:blue:t1');
    });
  }

  it('property: a write is made only where can allows it on the row as it is when written, else nothing is', async () => {
    const value = { owner_id: fc.constantFrom(1, 2), team: fc.constantFrom('red', 'blue') };
    const condition = fc.record(value, { requiredKeys: [] });
    const rule = fc.record(
      {
        action: fc.constantFrom('update', 'delete'),
        conditions: condition,
        fields: fc.constantFrom<string[] | undefined>(undefined, ['title'], ['note']),
        inverted: fc.constantFrom(undefined, undefined, true),
      },
      { requiredKeys: ['action', 'conditions'] },
    );
    const row = fc.record(value);
    const run = fc.record({
      rules: fc.array(rule, { maxLength: 3 }),
      rows: fc.tuple(row, row, row),
      action: fc.constantFrom('update', 'delete'),
      ids: fc.subarray([1, 2, 3], { minLength: 1 }),
      // What another writer does to a row between req.em's read and its flush.
      meanwhile: fc.option(
        fc.record({
          id: fc.constantFrom(1, 2, 3),
          change: fc.oneof(row, fc.constant('note' as const), fc.constant(null)),
        }),
        { nil: undefined },
      ),
    });
    await fc
      .assert(
        fc.asyncProperty(run, async ({ rules, rows: generated, action, ids, meanwhile }) => {
          t.auth.defineRole('member', [
            { action: 'read', subject: 'Ticket' },
            ...rules.map((r) => ({ ...r, subject: 'Ticket' })),
          ]);
          const em0 = orm.em.fork();
          await em0.nativeDelete(Ticket, {});
          for (const [i, r] of generated.entries()) await em0.insert(Ticket, { id: i + 1, ...r, title: `t${i + 1}` });
          const em = t.auth.em(ada);
          const tickets = await em.find(Ticket, { id: ids }, { orderBy: { id: 'asc' } });
          const other = orm.em.fork();
          if (meanwhile?.change === null) await other.nativeDelete(Ticket, meanwhile.id);
          else if (meanwhile?.change === 'note') await other.nativeUpdate(Ticket, meanwhile.id, { note: 'meanwhile' });
          else if (meanwhile) await other.nativeUpdate(Ticket, meanwhile.id, meanwhile.change);
          const atWrite = await rows();
          const current = new Map((await orm.em.fork().find(Ticket, {})).map((r) => [r.id, { ...r }]));
          for (const ticket of tickets) {
            if (action === 'update') ticket.title = 'edited';
            else em.remove(ticket);
          }
          const ability = t.auth.abilityFor(ada);
          const allowedOn = (id: number): boolean => {
            const it = current.get(id);
            if (!it) return false;
            return action === 'update'
              ? ability.can('update', subject('Ticket', it), 'title')
              : ability.can('delete', subject('Ticket', it));
          };
          const error = await failure(em.flush());
          const where = JSON.stringify({ rules, generated, action, ids, meanwhile });
          if (error === undefined) {
            expect(ids.every(allowedOn), `${where}: written where can refuses`).to.equal(true);
            const expected = atWrite.flatMap((line) => {
              const id = Number(line.split(':')[0]);
              if (!ids.includes(id)) return [line];
              return action === 'delete' ? [] : [line.replace(/:[^:]*$/, ':edited')];
            });
            expect(await rows(), where).to.deep.equal(expected);
          } else {
            expect(error, where).to.be.instanceOf(AuthError);
            expect(await rows(), `${where}: a refused flush writes nothing`).to.deep.equal(atWrite);
            // 403 exactly where can refuses a row as it is when written; 409 only for a row changed meanwhile, in reach.
            const code = (error as AuthError).code;
            if (code === 'forbidden') expect(ids.every(allowedOn), `${where}: 403`).to.equal(false);
            else {
              expect(code, where).to.equal('row_changed');
              expect(ids.every(allowedOn), `${where}: 409 where can refuses`).to.equal(true);
              expect(meanwhile !== undefined && ids.includes(meanwhile.id), `${where}: 409`).to.equal(true);
            }
          }
        }),
        {
          numRuns: 60,
          examples: [
            // Found by the property: out of reach as read, moved into reach meanwhile; written (it was a 403).
            [
              {
                rules: [{ action: 'update', conditions: { owner_id: 1 } }],
                rows: [
                  { owner_id: 1, team: 'red' },
                  { owner_id: 1, team: 'red' },
                  { owner_id: 2, team: 'red' },
                ],
                action: 'update',
                ids: [3],
                meanwhile: { id: 3, change: { owner_id: 1, team: 'red' } },
              },
            ],
          ],
        },
      )
      .finally(() => t.auth.defineRole('member', MEMBER));
  });

  it("the application's own EntityManager writes as MikroORM does", async () => {
    const em = t.auth.em(ada);
    const ticket = await em.findOneOrFail(Ticket, 1);
    ticket.title = 'edited';
    await em.flush();
    // Its own flush, of a row req.em expected things of a moment ago: no condition, no refusal.
    const own = orm.em.fork();
    const same = await own.findOneOrFail(Ticket, 1);
    await orm.em.fork().nativeUpdate(Ticket, 1, { team: 'blue' });
    same.title = 'own';
    await own.flush();
    expect((await rows())[0]).to.equal('1:1:blue:own');
  });
}

describe('req.em: conditional writes [SQLite]', () => {
  suite(async () => ({ options: sqliteDefaults(':memory:'), drop: async () => {} }));
});

describePostgres('req.em: conditional writes', () => {
  suite(async () => {
    const { url, drop } = await createPostgresDatabase();
    const { PostgreSqlDriver } = await import('@mikro-orm/postgresql');
    return { options: { driver: PostgreSqlDriver, clientUrl: url } as Options, drop };
  }, true);
});
