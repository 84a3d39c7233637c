/**
 * `last_used_at` and `last_seen_at` reach the database in one statement per flush, whatever the
 * number of tokens and sessions used since the last one, each row with its own time (CONTRACT-2
 * §16). On SQLite and, with SERVICE_AUTH_TEST_DATABASE_URL, on PostgreSQL.
 */
import { expect } from 'chai';
import request from 'supertest';
import { ApiToken, Session } from '../../src/storage/entities/index.js';
import { updateTimes } from '../../src/storage/times-update.js';
import { sha256Hex } from '../../src/secrets.js';
import { createTestApp, PASSWORD, type TestApp } from '../helpers/app.js';
import { onStatement } from '../helpers/orm.js';
import { createPostgresDatabase, describePostgres } from '../helpers/services.js';

function timesUpdateSuite(database: () => Promise<{ url: string; drop: () => Promise<void> }>) {
  let t: TestApp;
  let drop: () => Promise<void>;
  let updates: string[];

  beforeEach(async () => {
    const made = await database();
    drop = made.drop;
    t = await createTestApp(
      { SERVICE_AUTH_DATABASE_URL: made.url, SERVICE_AUTH_RATE_LIMIT_ENABLED: false },
      (app, auth) => {
        app.get('/whoami', auth.tokenRequired, (req, res) => void res.json({ email: req.user!.email }));
      },
    );
    updates = [];
    await onStatement(await t.parts.storage.em(), (sql) => {
      if (/^update /i.test(sql)) updates.push(sql);
    });
  });

  afterEach(async () => {
    await t.auth.close();
    await drop();
  });

  it('writes the last use of every token used since the last flush in one statement', async () => {
    const tokens = [];
    for (let i = 0; i < 5; i++) {
      const user = await t.auth.users.create({ email: `user${i}@example.com`, password: PASSWORD });
      tokens.push(await t.auth.tokens.create(user.id, { name: 'script' }));
    }
    for (const token of tokens)
      await request(t.app).get('/whoami').set('Authorization', `Bearer ${token.token}`).expect(200);
    updates.length = 0;
    await t.parts.verifier.flush();
    expect(updates.filter((sql) => sql.includes('service_auth_api_tokens'))).to.have.length(1);
    const rows = await (
      await t.parts.storage.em()
    )
      .fork()
      .find(ApiToken, { publicId: { $in: tokens.map((token) => token.id) } });
    expect(rows.map((row) => row.lastUsedAt)).to.satisfy((times: (Date | null)[]) =>
      times.every((time) => time && Date.now() - time.getTime() < 60_000),
    );
  });

  it('gives each row its own time, and leaves every other row alone', async () => {
    const sessions = [];
    for (let i = 0; i < 3; i++) {
      const user = await t.auth.users.create({ email: `user${i}@example.com`, password: PASSWORD });
      sessions.push(sha256Hex((await t.parts.sessions.create(user.id)).id));
    }
    const em = await t.parts.storage.em();
    const before = (await em.fork().findOneOrFail(Session, { idHash: sessions[2]! })).lastSeenAt;
    const times: [string, number][] = [
      [sessions[0]!, Date.parse('2026-01-02T03:04:05.678Z')],
      [sessions[1]!, Date.parse('2026-06-07T08:09:10.111Z')],
    ];
    updates.length = 0;
    await updateTimes(em, Session, 'idHash', 'lastSeenAt', times);
    expect(updates).to.have.length(1);
    const seen = async (idHash: string) =>
      (await em.fork().findOneOrFail(Session, { idHash })).lastSeenAt.toISOString();
    expect(await seen(sessions[0]!)).to.equal('2026-01-02T03:04:05.678Z');
    expect(await seen(sessions[1]!)).to.equal('2026-06-07T08:09:10.111Z');
    expect(await seen(sessions[2]!)).to.equal(before.toISOString());
  });
}

describe('last use written in one statement per flush [SQLite]', () => {
  timesUpdateSuite(async () => ({ url: 'sqlite::memory:', drop: async () => {} }));
});

describePostgres('last use written in one statement per flush', () => {
  timesUpdateSuite(createPostgresDatabase);
});
