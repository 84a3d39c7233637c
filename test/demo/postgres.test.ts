/**
 * The demo on PostgreSQL: its own tables beside the package's in one database, created and seeded
 * once when two demo processes start together on a fresh database, and each one's notes and
 * projects seen by the other.
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
  const meg = 'meg@example.com';
  let megId: number;

  before(async () => {
    database = await createPostgresDatabase();
    dir = await mkdtemp(join(tmpdir(), 'service-auth-demo-'));
    const started = await Promise.allSettled(
      [0, 1].map(() => startDemo(dir, { SERVICE_AUTH_DATABASE_URL: database.url })),
    );
    demos = started.flatMap((outcome) => (outcome.status === 'fulfilled' ? [outcome.value] : []));
    const failed = started.find((outcome): outcome is PromiseRejectedResult => outcome.status === 'rejected');
    if (failed) throw failed.reason;
    operator = await createTestApp({ SERVICE_AUTH_DATABASE_URL: database.url });
    // The operator knows the demo's roles, as `npx service-auth` in the repository reads ./policies.
    operator.auth.loadPolicies(new URL('../../policies', import.meta.url));
    const owner = await operator.auth.users.create({
      email: boss,
      password: PASSWORD,
      roles: ['admin'],
      isAdmin: true,
    });
    const member = await operator.auth.users.create({ email: meg, password: PASSWORD });
    megId = member.id;
    await operator.auth.orgs.create({ name: 'Acme', slug: 'acme', owner: owner.id });
    await operator.auth.orgs.addMember('acme', member.id, ['member']);
    clients = demos.map((demo) => new DemoClient(demo.url));
    for (const client of clients) for (const email of [boss, meg]) await client.login(email);
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
      expect(body.reports.map((report: { title: string }) => report.title)).to.deep.equal([
        'North plan',
        'North budget',
        'South plan',
        'South budget',
      ]);
    }
  });

  it("recorded its migrations in its own table, beside the package's", async () => {
    const client = new pg.Client({ connectionString: database.url });
    await client.connect();
    try {
      const { rows } = await client.query<{ name: string }>('SELECT name FROM demo_migrations ORDER BY id');
      expect(rows.map((row) => row.name)).to.deep.equal([
        'Migration20261123000000_demo_tables',
        'Migration20261123000001_seed_reports',
        'Migration20261126000000_project_tracker',
      ]);
      const tables = await client.query<{ table_name: string }>(
        "SELECT table_name FROM information_schema.tables WHERE table_schema = 'public' AND table_name LIKE 'demo_%' ORDER BY table_name",
      );
      expect(tables.rows.map((row) => row.table_name)).to.deep.equal([
        'demo_migrations',
        'demo_notes',
        'demo_project_members',
        'demo_projects',
        'demo_reports',
        'demo_tasks',
      ]);
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

  it("the project tracker: a project and its task made through one process are the member's through the other, by project.members", async () => {
    const [a, b] = clients as [DemoClient, DemoClient];
    const project = await a.call('POST', '/orgs/acme/projects', boss, { name: 'Launch' });
    expect(project.status).to.equal(201);
    const other = await a.call('POST', '/orgs/acme/projects', boss, { name: 'Secret' });
    expect(
      (await a.call('POST', `/orgs/acme/projects/${project.body.project.id}/members`, boss, { user_id: megId })).status,
    ).to.equal(204);
    const task = await a.call('POST', '/orgs/acme/tasks', boss, {
      project_id: project.body.project.id,
      title: 'Ship it',
      assignee_id: megId,
    });
    expect(
      (await a.call('POST', '/orgs/acme/tasks', boss, { project_id: other.body.project.id, title: 'Plan' })).status,
    ).to.equal(201);
    const listed = await b.get('/orgs/acme/tasks', meg);
    expect(listed.body.tasks).to.deep.equal([task.body.task]);
    expect((await b.get('/orgs/acme/projects', meg)).body.projects.map((p: { name: string }) => p.name)).to.deep.equal([
      'Launch',
    ]);
    expect((await b.call('PATCH', `/orgs/acme/tasks/${task.body.task.id}`, meg, { done: true })).body.task).to.include({
      done: true,
    });
  });
});
