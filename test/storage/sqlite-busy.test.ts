/**
 * The package and the application's own MikroORM writing to one SQLite file at once, the normal
 * case of an application sharing its database: every write transaction of the package takes the
 * write lock first and waits its turn for it, so no request answers 500 and every write that
 * answered 2xx is in the database; past the wait, 503 `unavailable` with Retry-After.
 */
import { defineEntity } from '@mikro-orm/core';
import { MikroORM } from '@mikro-orm/core';
import { expect } from 'chai';
import request from 'supertest';
import { totpCode } from '../../src/mfa/totp.js';
import { ApiToken, Session, User } from '../../src/storage/entities/index.js';
import { createTestApp, PASSWORD, sessionCookieFrom, temporaryDatabase, type TestApp } from '../helpers/app.js';
import { execute, heldTransaction, MIKRO_ORM_MAJOR, onStatement, sqliteDefaults } from '../helpers/orm.js';

const p = defineEntity.properties;
/** The application's own entity, in a table of its own on the package's database. */
const AppNote = defineEntity({
  name: 'AppNote',
  tableName: 'app_notes',
  properties: { id: p.integer().primary().autoincrement(), body: p.string() },
});

/** The application's own MikroORM, with MikroORM's defaults, on the same file. */
async function applicationOrm(url: string): Promise<MikroORM> {
  const orm = await MikroORM.init({
    ...sqliteDefaults(url.slice('sqlite:'.length)),
    entities: [AppNote],
    allowGlobalContext: true,
  });
  await execute(
    orm.em,
    'create table if not exists app_notes (id integer primary key autoincrement, body text not null)',
  );
  return orm;
}

/**
 * Writes as applications do, until stopped: transactions that read and then write, and plain
 * flushes. Their own failures are the application's (its driver's default busy timeout); what
 * matters is that they keep writing meanwhile.
 */
function writeUntilStopped(orm: MikroORM, writers = 3) {
  let running = true;
  let written = 0;
  const loops = Array.from({ length: writers }, async (_, n) => {
    while (running) {
      const em = orm.em.fork();
      const write =
        n % 2 === 0
          ? em.transactional(async (tx) => {
              const count = await tx.count(AppNote);
              tx.create(AppNote, { body: `note ${count}` });
            })
          : (em.create(AppNote, { body: 'plain' }), em.flush());
      await write.then(
        () => written++,
        () => undefined,
      );
      // node:sqlite (MikroORM 7) answers synchronously: without a turn of the event loop, a loop of
      // failing writes would never let the requests (or its own lock's holder) go on.
      await new Promise((resolve) => setImmediate(resolve));
    }
  });
  return {
    /** Stops the writers; resolves to how many writes they made. */
    async stop(): Promise<number> {
      running = false;
      await Promise.all(loops);
      return written;
    },
  };
}

describe('SQLite shared with the application’s own MikroORM', function () {
  this.timeout(60_000);
  let database: Awaited<ReturnType<typeof temporaryDatabase>>;
  let t: TestApp;
  let orm: MikroORM;
  beforeEach(async () => {
    database = await temporaryDatabase();
    t = await createTestApp({ SERVICE_AUTH_DATABASE_URL: database.url, SERVICE_AUTH_RATE_LIMIT_ENABLED: false });
    orm = await applicationOrm(database.url);
    await t.auth.users.create({ email: 'ada@example.com', password: PASSWORD });
  });
  afterEach(async () => {
    await orm.close(true);
    await t.auth.close();
    await database.remove();
  });

  const login = (email: string, password = PASSWORD) =>
    request(t.app).post('/service-auth/login').send({ email, password });
  const createToken = (cookie: string, name: string) =>
    request(t.app).post('/service-auth/api/tokens').set('Cookie', cookie).send({ name });

  it('answers 16 token creations, registrations, logins, a password change, a session revocation and a TOTP confirmation while it writes: no 500, each 2xx stored', async () => {
    await t.auth.users.create({ email: 'bob@example.com', password: PASSWORD });
    const ada = sessionCookieFrom(await login('ada@example.com').expect(200))!;
    const bob = sessionCookieFrom(await login('bob@example.com').expect(200))!;
    await login('bob@example.com').expect(200);
    const other = (
      await request(t.app).get('/service-auth/api/sessions').set('Cookie', bob).expect(200)
    ).body.sessions.find((s: { current: boolean }) => !s.current);
    const setup = (await request(t.app).post('/service-auth/api/mfa/totp').set('Cookie', bob).expect(200)).body;

    const application = writeUntilStopped(orm);
    const responses = await Promise.all([
      ...Array.from({ length: 16 }, (_, i) => createToken(ada, `t${i}`)),
      ...Array.from({ length: 2 }, (_, i) =>
        request(t.app)
          .post('/service-auth/register')
          .send({ email: `new${i}@example.com`, password: PASSWORD }),
      ),
      ...Array.from({ length: 2 }, () => login('bob@example.com')),
      request(t.app)
        .post('/service-auth/password')
        .set('Cookie', ada)
        .send({ current_password: PASSWORD, password: 'Second-Horse-Battery-7' }),
      request(t.app).delete(`/service-auth/api/sessions/${other.id}`).set('Cookie', bob),
      request(t.app)
        .post('/service-auth/api/mfa/totp/confirm')
        .set('Cookie', bob)
        .send({ code: totpCode(setup.secret, Date.now()) }),
    ]);
    expect(await application.stop(), 'the application wrote meanwhile').to.be.greaterThan(0);

    for (const response of responses) {
      // Each write waits its turn for the lock; only one kept waiting past the wait may be a 503.
      expect(response.status, response.text).to.be.oneOf([200, 201, 204, 503]);
      if (response.status === 503)
        expect([response.body.code, response.headers['retry-after']]).to.deep.equal(['unavailable', '5']);
    }
    const ok = (r: request.Response) => r.status < 300;
    const [tokens, registrations, logins] = [
      responses.slice(0, 16).filter(ok),
      responses.slice(16, 18).filter(ok),
      responses.slice(18, 20).filter(ok),
    ];
    const [password, revocation, totp] = responses.slice(20);
    expect(tokens.length, 'token creations that succeeded').to.be.greaterThan(0);
    const em = (await t.parts.storage.em()).fork();
    expect(await em.count(ApiToken, { publicId: { $in: tokens.map((r) => r.body.id as string) } })).to.equal(
      tokens.length,
    );
    expect(await em.count(User, { email: { $in: registrations.map((r) => r.body.user.email as string) } })).to.equal(
      registrations.length,
    );
    for (const r of logins)
      await request(t.app).get('/service-auth/me').set('Cookie', sessionCookieFrom(r)!).expect(200);
    if (ok(password!)) await login('ada@example.com', 'Second-Horse-Battery-7').expect(200);
    if (ok(revocation!)) expect(await em.count(Session, { publicId: other.id })).to.equal(0);
    if (ok(totp!))
      expect((await em.findOneOrFail(User, { email: 'bob@example.com' })).mfaEnabledAt).to.be.instanceOf(Date);
  });

  it('waits for a write lock held a moment; held past the wait, answers 503 unavailable with Retry-After and writes nothing', async () => {
    const ada = sessionCookieFrom(await login('ada@example.com').expect(200))!;
    const em = (await t.parts.storage.em()).fork();
    // The package's one connection, told to wait 300 ms instead of 5 s, to keep the test short. On
    // MikroORM 7 the wait is the dialect's own, not SQLite's (sqlite-options.test.ts): 5 s.
    if (MIKRO_ORM_MAJOR < 7) await execute(em, 'pragma busy_timeout = 300');
    /** Takes the write lock on the application's connection, as a transaction of its own that wrote does. */
    const holdLock = () => heldTransaction(orm.em, "insert into app_notes (body) values ('holding the write lock')");

    // Released once the creation has begun its transaction, while that waits for the lock: it
    // gets the lock and succeeds.
    const begun = new Promise<void>(
      (resolve) => void onStatement(em, (sql) => /^BEGIN IMMEDIATE/i.test(sql) && resolve()),
    );
    let lock = await holdLock();
    const waiting = createToken(ada, 'waited').then((response) => response);
    await begun;
    await new Promise((resolve) => setTimeout(resolve, 50)); // well within the 300 ms it waits
    await lock.commit();
    const waited = await waiting;
    expect(waited.status, waited.text).to.equal(201);

    lock = await holdLock();
    const refused = await createToken(ada, 'refused');
    await lock.commit();
    expect(refused.status, refused.text).to.equal(503);
    expect(refused.body.code).to.equal('unavailable');
    expect(refused.headers['retry-after']).to.equal('5');
    expect(t.log.text()).to.contain('database busy in POST "/service-auth/api/tokens"');
    expect((await em.find(ApiToken, {})).map((row) => row.name)).to.deep.equal(['waited']);
  });
});
