/**
 * The audit log's hash chain (CONTRACT-2 §17): records written by the package verify; tampering
 * with any one row, its content or its place, makes `verify` name it; pruning keeps the chain
 * verifiable from the first row left; two instances appending at once on PostgreSQL make one chain.
 */
import { expect } from 'chai';
import fc from 'fast-check';
import type { MikroORM } from '@mikro-orm/core';
import { withAuditContext } from '../../src/audit/context.js';
import { canonicalJson, chainHash } from '../../src/audit/records.js';
import { AuditEvent } from '../../src/storage/entities/index.js';
import { rechain } from '../helpers/audit.js';
import { createTestApp, openDatabase, PASSWORD, temporaryDatabase, type TestApp } from '../helpers/app.js';
import { createPostgresDatabase, describePostgres } from '../helpers/services.js';

type Database = () => Promise<{ url: string; drop: () => Promise<void> }>;

function chainSuite(database: Database) {
  let t: TestApp;
  let orm: MikroORM;
  let drop: () => Promise<void>;

  beforeEach(async () => {
    const made = await database();
    drop = made.drop;
    t = await createTestApp({ SERVICE_AUTH_DATABASE_URL: made.url, SERVICE_AUTH_RATE_LIMIT_ENABLED: false });
    orm = await openDatabase(made.url);
  });

  afterEach(async () => {
    await t.auth.close();
    await orm.close(true);
    await drop();
  });

  /** A dozen records of several kinds, as an application's code makes them. */
  async function someHistory(): Promise<void> {
    const user = await t.auth.users.create({ email: 'ada@example.com', password: PASSWORD, roles: ['editor'] });
    await t.auth.users.addRole(user.id, 'auditor');
    const token = await t.auth.tokens.create(user.id, { name: 'ci' });
    await t.auth.tokens.revoke(token.id);
    await t.auth.users.disable(user.id);
    await t.auth.users.enable(user.id);
    await t.auth.users.removeRole(user.id, 'auditor');
    await t.auth.users.create({ email: 'bob@example.com', password: PASSWORD });
    await t.auth.users.delete('bob@example.com');
  }

  const rows = () => orm.em.fork().find(AuditEvent, {}, { orderBy: { id: 'asc' } });
  const sql = (statement: string, params: unknown[] = []) =>
    orm.em.fork().getConnection().execute(statement, params, 'run');

  it('records what the API did, in order, with the actor api, and the chain verifies', async () => {
    await someHistory();
    const written = await rows();
    expect(written.map((row) => row.type)).to.deep.equal([
      'user_created',
      'role_added',
      'token_created',
      'token_revoked',
      'user_disabled',
      'user_enabled',
      'role_removed',
      'user_created',
      'user_deleted',
    ]);
    expect(written.map((row) => row.id)).to.deep.equal([1, 2, 3, 4, 5, 6, 7, 8, 9]);
    expect(written.every((row) => JSON.parse(row.detail).actor === 'api')).to.equal(true);
    expect(JSON.parse(written[1]!.detail)).to.deep.equal({ actor: 'api', role: 'auditor' });
    expect(await t.auth.audit.verify()).to.deep.equal({ intact: true, rows: 9, first: 1, last: 9 });
  });

  it('names a row whose content was changed', async () => {
    await someHistory();
    await sql('update auth_events set email = ? where id = 4', ['mallory@example.com']);
    expect(await t.auth.audit.verify()).to.include({ intact: false, brokenAt: 4 });
  });

  it('names the row after one whose hash was recomputed to fit its new content', async () => {
    await someHistory();
    const em = orm.em.fork();
    const [seventh, eighth] = await em.find(AuditEvent, { id: { $in: [7, 8] } }, { orderBy: { id: 'asc' } });
    eighth!.email = 'mallory@example.com';
    eighth!.hash = chainHash(seventh!.hash, canonicalJson(eighth as never));
    await em.flush();
    expect(await t.auth.audit.verify()).to.include({ intact: false, brokenAt: 9 });
  });

  it('names the first of two rows whose places were swapped', async () => {
    await someHistory();
    await sql('update auth_events set id = -1 where id = 3');
    await sql('update auth_events set id = 3 where id = 6');
    await sql('update auth_events set id = 6 where id = -1');
    expect(await t.auth.audit.verify()).to.include({ intact: false, brokenAt: 3 });
  });

  it('names the row after one that was deleted, and a chain missing its first rows', async () => {
    await someHistory();
    await sql('delete from auth_events where id = 5');
    expect(await t.auth.audit.verify()).to.deep.include({ intact: false, brokenAt: 6 });
    await sql('delete from auth_events where id < 5');
    expect(await t.auth.audit.verify()).to.deep.include({ intact: false, brokenAt: 6 });
  });

  it('prunes rows past the retention, leaving a record of it from which the rest verifies', async () => {
    await someHistory();
    const old = new Date(Date.now() - 400 * 86_400_000);
    await sql('update auth_events set at = ? where id <= 4', [orm.em.getPlatform().processDateProperty(old)]);
    // The hashes covered the old times: rewrite them as a chain of their own, as if written then.
    await rechain(orm);
    expect(await t.auth.audit.verify()).to.include({ intact: true });
    expect(await t.auth.audit.prune()).to.equal(4);
    const left = await rows();
    expect(left[0]!.id).to.equal(5);
    const record = left[left.length - 1]!;
    expect(record.type).to.equal('audit_pruned');
    expect(JSON.parse(record.detail)).to.include({ through: 4, rows: 4 });
    expect(await t.auth.audit.verify()).to.deep.equal({ intact: true, rows: 6, first: 5, last: 10 });
    expect(await t.auth.audit.prune(), 'nothing more to prune').to.equal(0);
    await sql("update auth_events set type = 'login' where id = 5");
    expect(await t.auth.audit.verify()).to.include({ intact: false, brokenAt: 5 });
  });

  it('stores any text it is given so that the chain still verifies (property)', async () => {
    const text = fc.string({ unit: 'binary', maxLength: 40 });
    let n = 0;
    // Kept as fixed cases: what PostgreSQL's text refuses or would change, and a cut in a pair.
    const examples: [string, string, string][] = [
      ['a\u0000b@example.com', '\ud800', 'x\udfffy'],
      ['ADA@Example.com ', '😀'.repeat(300), 'é'],
    ];
    await fc.assert(
      fc.asyncProperty(text, text, text, async (email, userAgent, name) => {
        n++;
        await withAuditContext({ actor: 'http', ip: '203.0.113.9', userAgent }, async () => {
          t.parts.audit.fail({ type: 'login', email, reason: 'invalid_credentials', detail: { name } });
          await t.parts.audit.flush();
        });
        const check = await t.auth.audit.verify();
        return check.intact && check.rows === n;
      }),
      { numRuns: 40, examples },
    );
    const [newest] = await t.auth.audit.query({ limit: 1 });
    expect(newest!.detail['actor']).to.equal('http');
  });

  it('writes queued failures in one batch, at close too', async () => {
    for (let i = 0; i < 25; i++)
      t.parts.audit.fail({ type: 'login', email: `nobody${i}@example.com`, reason: 'invalid_credentials' });
    expect(await rows()).to.have.length(0);
    await t.auth.close();
    const written = await rows();
    expect(written).to.have.length(25);
    expect(written.every((row) => row.outcome === 'failure')).to.equal(true);
  });
}

describe('the audit chain [SQLite]', () => {
  chainSuite(async () => {
    const file = await temporaryDatabase();
    return { url: file.url, drop: file.remove };
  });
});

describePostgres('the audit chain', () => {
  chainSuite(createPostgresDatabase);

  it('stays one chain when two instances append at once', async () => {
    const { url, drop } = await createPostgresDatabase();
    const settings = { SERVICE_AUTH_DATABASE_URL: url, SERVICE_AUTH_RATE_LIMIT_ENABLED: false };
    const a = await createTestApp(settings);
    const b = await createTestApp(settings);
    try {
      const user = await a.auth.users.create({ email: 'ada@example.com', password: PASSWORD });
      const work = (t: TestApp, name: string) =>
        Promise.all(
          Array.from({ length: 20 }, async (_, i) => {
            t.parts.audit.fail({ type: 'login', email: `${name}${i}@example.com`, reason: 'invalid_credentials' });
            if (i % 2 === 0) await t.parts.audit.flush();
            await t.auth.users.addRole(user.id, `${name}-${i}`);
          }),
        );
      await Promise.all([work(a, 'a'), work(b, 'b')]);
      await a.auth.audit.flush();
      await b.auth.audit.flush();
      const check = await a.auth.audit.verify();
      expect(check).to.deep.equal({ intact: true, rows: 81, first: 1, last: 81 });
    } finally {
      await a.auth.close();
      await b.auth.close();
      await drop();
    }
  });
});
