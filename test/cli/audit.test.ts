/**
 * CONTRACT-2 §17 from the command line: `auth audit` reads what CLI commands recorded, newest
 * first, filtered; `auth audit verify` names a tampered row; `auth audit prune` removes the rows
 * past the retention and leaves a chain that still verifies. Real processes on one SQLite file.
 */
import { expect } from 'chai';
import type { MikroORM } from '@mikro-orm/core';
import { AuditEvent } from '../../src/storage/entities/index.js';
import { rechain } from '../helpers/audit.js';
import { createTestApp, openDatabase, PASSWORD, temporaryDatabase } from '../helpers/app.js';
import { runCli, type CliOptions, type CliResult } from './cli-process.js';
import { runCliInProcess } from './in-process.js';

/** A record as `auth audit --json` prints it. */
interface RecordJson {
  id: number;
  at: string;
  type: string;
  email: string | null;
  detail: Record<string, unknown>;
  hash: string;
}

const DAY_MS = 86_400_000;
const BROKEN_HASH = 'its hash does not match its content and the row before it';

describe('CLI: audit, audit verify and audit prune', () => {
  let database: Awaited<ReturnType<typeof temporaryDatabase>>;
  let orm: MikroORM;
  /** When each row was written, once the history has been aged (below). */
  const written = new Map<number, Date>();
  // In this process; a real one for the first command and for the empty database's verify.
  const cli = (args: string[], options: CliOptions = {}): Promise<CliResult> =>
    runCliInProcess(['auth', ...args, '--database', database.url], options);
  const records = async (...args: string[]): Promise<RecordJson[]> => {
    const result = await cli(['audit', ...args, '--json']);
    expect({ code: result.code, stderr: result.stderr }, args.join(' ')).to.deep.equal({ code: 0, stderr: '' });
    return JSON.parse(result.stdout) as RecordJson[];
  };
  const ids = async (...args: string[]): Promise<number[]> => (await records(...args)).map((record) => record.id);
  const sql = (statement: string, params: unknown[] = []) =>
    orm.em.fork().getConnection().execute(statement, params, 'run');
  const rows = () => orm.em.fork().find(AuditEvent, {}, { orderBy: { id: 'asc' }, disableIdentityMap: true });

  before(async () => {
    database = await temporaryDatabase();
    // One after another: each is a writer of the same SQLite file (see cli-process.ts runBatch).
    for (const args of [
      ['create-user', '--email', 'Ada@example.com', '--password-stdin', '--role', 'editor'],
      ['create-user', '--email', 'bob@example.com', '--password-stdin'],
      ['add-role', 'ada@example.com', 'auditor', '--force'],
      ['disable-user', 'bob@example.com'],
    ]) {
      const run = args[2] === 'Ada@example.com' ? runCli : runCliInProcess;
      const result = await run(['auth', ...args, '--database', database.url], { input: `${PASSWORD}\n` });
      expect(result.code, `${args.join(' ')}: ${result.stderr}`).to.equal(0);
    }
    orm = await openDatabase(database.url);
    // A history spread over time: #1 400 days ago, #2 10 days ago, #3 3 days ago, #4 now. The
    // hashes covered the real times, so the chain is rewritten as if written at these.
    const now = Date.now();
    for (const [id, daysAgo] of [
      [1, 400],
      [2, 10],
      [3, 3],
    ] as const) {
      await sql('update auth_events set at = ? where id = ?', [
        orm.em.getPlatform().processDateProperty(new Date(now - daysAgo * DAY_MS)),
        id,
      ]);
    }
    await rechain(orm);
    for (const row of await rows()) written.set(row.id, row.at);
  });
  after(async () => {
    await orm?.close(true);
    await database.remove();
  });

  describe('auth audit', () => {
    it('lists what CLI commands recorded, newest first, with the actor cli; --json gives the records', async () => {
      const all = await records();
      expect(all.map(({ id, type, email, detail }) => ({ id, type, email, detail }))).to.deep.equal([
        { id: 4, type: 'user_disabled', email: 'bob@example.com', detail: { actor: 'cli' } },
        { id: 3, type: 'role_added', email: 'ada@example.com', detail: { actor: 'cli', role: 'auditor' } },
        { id: 2, type: 'user_created', email: 'bob@example.com', detail: { actor: 'cli', roles: null } },
        { id: 1, type: 'user_created', email: 'ada@example.com', detail: { actor: 'cli', roles: 'editor' } },
      ]);
      // The contract's field names, as the security log answers them.
      expect(all[1]).to.have.all.keys(
        'id',
        'at',
        'type',
        'outcome',
        'user_id',
        'email',
        'ip',
        'user_agent',
        'reason',
        'detail',
        'hash',
      );
      expect(all[1]).to.include({ outcome: 'success', user_id: 1, ip: null, user_agent: null, reason: null });
      const stored = await rows();
      expect(all.map((record) => record.at)).to.deep.equal([4, 3, 2, 1].map((id) => written.get(id)!.toISOString()));
      expect(all.map((record) => record.hash)).to.deep.equal([4, 3, 2, 1].map((id) => stored[id - 1]!.hash));
    });

    it('prints a table: ID, At, Type, Outcome, User, Email, IP, Reason, Actor', async () => {
      const { code, stdout, stderr } = await cli(['audit']);
      expect({ code, stderr }).to.deep.equal({ code: 0, stderr: '' });
      const lines = stdout.split('\n');
      expect(lines[0]).to.match(/^ID +At +Type +Outcome +User +Email +IP +Reason +Actor$/);
      const time = (id: number) =>
        written
          .get(id)!
          .toISOString()
          .replace(/\.\d{3}Z$/, 'Z');
      expect(lines.slice(1)).to.have.length(5); // four rows and the final newline
      expect(lines[1]).to.match(new RegExp(`^4 +${time(4)} +user_disabled +success +2 +bob@example\\.com +- +- +cli$`));
      expect(lines[2]).to.match(new RegExp(`^3 +${time(3)} +role_added +success +1 +ada@example\\.com +- +- +cli$`));
      expect(lines[4]).to.match(new RegExp(`^1 +${time(1)} +user_created +success +1 +ada@example\\.com +- +- +cli$`));
    });

    it('filters by --email, --user-id, --type, --since (a date or a time back), --limit and --before', async () => {
      // The UTC day 5 days ago: its midnight is after #2 (10 days ago) and before #3 (3 days ago).
      const fiveDaysAgo = new Date(Date.now() - 5 * DAY_MS).toISOString().slice(0, 10);
      const results = await Promise.all([
        ids('--email', ' BOB@Example.com'),
        ids('--type', 'user_created'),
        ids('--type', 'user_created', '--email', 'ada@example.com'),
        ids('--since', '7d'),
        ids('--since', '12h'),
        ids('--since', fiveDaysAgo),
        ids('--since', '2000-01-01'),
        ids('--limit', '2'),
        ids('--since', '30d', '--limit', '1'),
        ids('--type', 'login'),
        ids('--limit', '2', '--before', '3'),
        ids('--user-id', '2'),
      ]);
      expect(results).to.deep.equal([
        [4, 2],
        [2, 1],
        [1],
        [4, 3],
        [4],
        [4, 3],
        [4, 3, 2, 1],
        [4, 3],
        [4],
        [],
        [2, 1],
        [4, 2],
      ]);
      expect(await cli(['audit', '--type', 'login'])).to.deep.equal({ code: 0, stdout: 'No records.\n', stderr: '' });
    });

    it('refuses a bad --type, --since, --limit, --before or --user-id with a message and exit 2, changing nothing', async () => {
      const before = await rows();
      const bad = [
        ['--type', 'signin'],
        ['--since', 'yesterday'],
        ['--since', '2026-02-30'],
        ['--since', '7w'],
        ['--limit', '0'],
        ['--limit', '1001'],
        ['--limit', 'ten'],
        ['--before', '0'],
        ['--user-id', 'ada'],
      ];
      const results = await Promise.all(bad.map((args) => cli(['audit', ...args])));
      const messages = results.map(({ code, stdout, stderr }) => {
        expect({ code, stdout }).to.deep.equal({ code: 2, stdout: '' });
        expect(stderr).to.contain('\n$ service-auth auth audit ');
        return stderr.split('\n')[0];
      });
      const since = (value: string) =>
        `Usage Error: --since "${value}" is neither a date (YYYY-MM-DD, midnight UTC) nor a time back from now (7d, 12h)`;
      const limit = (value: string) => `Usage Error: --limit "${value}" is not an integer from 1 to 1000`;
      const notAnId = `Usage Error: --before "0" is not a record's id (a positive integer)`;
      const notAUser = `Usage Error: --user-id "ada" is not a user's id (a positive integer)`;
      expect(messages.slice(1)).to.deep.equal([
        since('yesterday'),
        since('2026-02-30'),
        since('7w'),
        limit('0'),
        limit('1001'),
        limit('ten'),
        notAnId,
        notAUser,
      ]);
      expect(messages[0]).to.match(
        /^Usage Error: --type "signin" is not a type of record; the types are user_registered, login, logout, .*, csrf_rejected, audit_pruned$/,
      );
      expect(await rows()).to.deep.equal(before);
    });
  });

  describe('auth audit verify', () => {
    it('exits 0 on an intact chain, saying how many rows', async () => {
      const [text, json] = await Promise.all([cli(['audit', 'verify']), cli(['audit', 'verify', '--json'])]);
      expect(text).to.deep.equal({ code: 0, stdout: 'Intact: 4 rows (#1 to #4)\n', stderr: '' });
      expect(json.code).to.equal(0);
      expect(JSON.parse(json.stdout)).to.deep.equal({ intact: true, rows: 4, first: 1, last: 4 });
    });

    it('exits 1 naming the row that was changed; --json prints the check on stdout', async () => {
      await sql('update auth_events set email = ? where id = 3', ['mallory@example.com']);
      try {
        const [text, json] = await Promise.all([cli(['audit', 'verify']), cli(['audit', 'verify', '--json'])]);
        expect(text).to.deep.equal({ code: 1, stdout: '', stderr: `Broken at row #3: ${BROKEN_HASH}\n` });
        expect({ code: json.code, stderr: json.stderr }).to.deep.equal({ code: 1, stderr: '' });
        expect(JSON.parse(json.stdout)).to.deep.equal({ intact: false, rows: 2, brokenAt: 3, why: BROKEN_HASH });
      } finally {
        await sql('update auth_events set email = ? where id = 3', ['ada@example.com']);
      }
      expect((await cli(['audit', 'verify'])).code, 'intact again').to.equal(0);
    });

    it('says so of a database with no records yet', async () => {
      const empty = await temporaryDatabase();
      try {
        expect(await runCli(['auth', 'audit', 'verify', '--database', empty.url])).to.deep.equal({
          code: 0,
          stdout: 'Intact: no rows yet\n',
          stderr: '',
        });
      } finally {
        await empty.remove();
      }
    });
  });

  describe('auth audit prune', () => {
    it('removes the rows past SERVICE_AUTH_AUDIT_RETENTION_DAYS (default 365), leaving a chain that verifies', async () => {
      expect(await cli(['audit', 'prune'])).to.deep.equal({
        code: 0,
        stdout: 'Removed 1 row older than 365 days (SERVICE_AUTH_AUDIT_RETENTION_DAYS)\n',
        stderr: '',
      });
      expect(await cli(['audit', 'verify'])).to.deep.equal({
        code: 0,
        stdout: 'Intact: 4 rows (#2 to #5)\n',
        stderr: '',
      });

      const twoDays = { env: { SERVICE_AUTH_AUDIT_RETENTION_DAYS: '2' } };
      expect(await cli(['audit', 'prune'], twoDays)).to.deep.equal({
        code: 0,
        stdout: 'Removed 2 rows older than 2 days (SERVICE_AUTH_AUDIT_RETENTION_DAYS)\n',
        stderr: '',
      });
      expect(await cli(['audit', 'prune'], twoDays)).to.deep.equal({
        code: 0,
        stdout: 'Removed 0 rows older than 2 days (SERVICE_AUTH_AUDIT_RETENTION_DAYS)\n',
        stderr: '',
      });
      expect(await cli(['audit', 'verify'])).to.deep.equal({
        code: 0,
        stdout: 'Intact: 3 rows (#4 to #6)\n',
        stderr: '',
      });
      expect(await ids()).to.deep.equal([6, 5, 4]);
    });

    it('records each removal as audit_pruned, with the actor cli', async () => {
      const pruned = await records('--type', 'audit_pruned');
      expect(
        pruned.map(({ id, detail }) => ({
          id,
          actor: detail['actor'],
          through: detail['through'],
          rows: detail['rows'],
        })),
      ).to.deep.equal([
        { id: 6, actor: 'cli', through: 3, rows: 2 },
        { id: 5, actor: 'cli', through: 1, rows: 1 },
      ]);
    });

    it('removes nothing with SERVICE_AUTH_AUDIT_ENABLED false, and says so', async () => {
      const before = await rows();
      const off = { env: { SERVICE_AUTH_AUDIT_ENABLED: 'false', SERVICE_AUTH_AUDIT_RETENTION_DAYS: '1' } };
      expect(await cli(['audit', 'prune'], off)).to.deep.equal({
        code: 0,
        stdout: 'The audit log is off (SERVICE_AUTH_AUDIT_ENABLED is false): nothing was removed\n',
        stderr: '',
      });
      expect(await rows()).to.deep.equal(before);
    });
  });
});

describe('CLI: auth audit, by person', () => {
  it('--email also finds the records that carry only the id of the user it names, as auth.audit.query({ email }) does', async () => {
    const database = await temporaryDatabase();
    try {
      // Written in this process (quicker than a CLI process each): a token's record carries the user's id, not the address.
      const t = await createTestApp({ SERVICE_AUTH_DATABASE_URL: database.url });
      try {
        const bob = await t.auth.users.create({ email: 'bob@example.com', password: PASSWORD });
        await t.auth.users.create({ email: 'carol@example.com', password: PASSWORD });
        await t.auth.tokens.create('bob@example.com', { name: 'deploy' });
        await t.auth.tokens.create('carol@example.com', { name: 'deploy' });
        const bobs = (await t.auth.audit.query({ email: ' Bob@Example.com' })).map(({ type, userId, email }) => ({
          type,
          userId,
          email,
        }));
        expect(bobs).to.deep.equal([
          { type: 'token_created', userId: bob.id, email: null },
          { type: 'user_created', userId: bob.id, email: 'bob@example.com' },
        ]);
        expect(await t.auth.audit.query({ email: 'nobody@example.com' })).to.deep.equal([]);
      } finally {
        await t.auth.close();
      }
      const result = await runCli([
        'auth',
        'audit',
        '--email',
        'bob@example.com',
        '--json',
        '--database',
        database.url,
      ]);
      expect({ code: result.code, stderr: result.stderr }).to.deep.equal({ code: 0, stderr: '' });
      const byEmail = (JSON.parse(result.stdout) as (RecordJson & { user_id: number | null })[]).map(
        ({ id, type, user_id, email }) => ({ id, type, user_id, email }),
      );
      expect(byEmail).to.deep.equal([
        { id: 3, type: 'token_created', user_id: 1, email: null },
        { id: 1, type: 'user_created', user_id: 1, email: 'bob@example.com' },
      ]);
    } finally {
      await database.remove();
    }
  });
});
