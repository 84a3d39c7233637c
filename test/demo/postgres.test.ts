/**
 * The demo on PostgreSQL: its own tables beside the package's in one database, created and seeded
 * once when two demo processes start together on a fresh database, and each one's notes seen by
 * the other.
 */
import { expect } from 'chai';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { createTestApp, PASSWORD, type TestApp } from '../helpers/app.js';
import { startDemo, type RunningDemo } from '../helpers/processes.js';
import { createPostgresDatabase, describePostgres } from '../helpers/services.js';
import { DemoClient } from './demo-client.js';

describePostgres('demo: two processes starting together on one fresh database', () => {
  let database: Awaited<ReturnType<typeof createPostgresDatabase>>;
  let dir: string;
  let demos: RunningDemo[] = [];
  let operator: TestApp;
  let clients: DemoClient[];
  const boss = 'boss@example.com';

  before(async () => {
    database = await createPostgresDatabase();
    dir = await mkdtemp(join(tmpdir(), 'service-auth-demo-'));
    const started = await Promise.allSettled([0, 1].map(() => startDemo(dir, { SERVICE_AUTH_DATABASE_URL: database.url })));
    demos = started.flatMap((outcome) => (outcome.status === 'fulfilled' ? [outcome.value] : []));
    const failed = started.find((outcome): outcome is PromiseRejectedResult => outcome.status === 'rejected');
    if (failed) throw failed.reason;
    operator = await createTestApp({ SERVICE_AUTH_DATABASE_URL: database.url });
    await operator.auth.users.create({ email: boss, password: PASSWORD, roles: ['admin'], isAdmin: true });
    clients = demos.map((demo) => new DemoClient(demo.url));
    for (const client of clients) await client.login(boss);
  });

  after(async () => {
    await operator?.auth.close();
    await Promise.all(demos.map((demo) => demo.stop()));
    await database?.drop();
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  it('seeded the four reports once, and both serve them', async () => {
    for (const client of clients) {
      const { body } = await client.get('/reports', boss);
      expect(body.reports.map((report: { title: string }) => report.title)).to.deep.equal(['North plan', 'North budget', 'South plan', 'South budget']);
    }
  });

  it("recorded its migrations in its own table, beside the package's", async () => {
    const client = new pg.Client({ connectionString: database.url });
    await client.connect();
    try {
      const { rows } = await client.query<{ name: string }>('SELECT name FROM demo_migrations ORDER BY id');
      expect(rows.map((row) => row.name)).to.deep.equal(['Migration20261123000000_demo_tables', 'Migration20261123000001_seed_reports']);
      const tables = await client.query<{ table_name: string }>("SELECT table_name FROM information_schema.tables WHERE table_schema = 'public' AND table_name LIKE 'demo_%' ORDER BY table_name");
      expect(tables.rows.map((row) => row.table_name)).to.deep.equal(['demo_migrations', 'demo_notes', 'demo_reports']);
    } finally {
      await client.end();
    }
  });

  it('a note made through one process is read, and changed, through the other', async () => {
    const [a, b] = clients as [DemoClient, DemoClient];
    const created = await a.call('POST', '/notes', boss, { title: 'Shared', body: 'one database' });
    expect(created.status).to.equal(201);
    expect((await b.get(`/notes/${created.body.id}`, boss)).body).to.include({ title: 'Shared' });
    expect((await b.call('PATCH', `/notes/${created.body.id}`, boss, { body: 'two processes' })).status).to.equal(200);
    expect((await a.get(`/notes/${created.body.id}`, boss)).body).to.include({ body: 'two processes' });
  });
});
