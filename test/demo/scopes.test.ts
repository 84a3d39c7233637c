/**
 * The demo's scopes (policies/scopes.json, CONTRACT-3 §25a): a token's ability is its owner's
 * intersected with its scopes' rules, on every route of the demo. A read-only token of a member
 * reads the tasks its owner reads and is refused writing them, where a token of the same user
 * made without scopes may; lists (`accessibleBy(req, …)`) select what the token's ability allows.
 */
import { subject } from '@casl/ability';
import { expect } from 'chai';
import { Task } from '../../demo/entities/index.js';
import { inProcessDemo, type DemoUser, type InProcessDemo } from './in-process.js';

const SCOPE_REFUSAL = "This token's scopes do not allow this";

describe("demo: tokens within the demo's scopes", () => {
  let demo: InProcessDemo;
  let mel: DemoUser;
  let ann: DemoUser;
  const tasks = { mine: 0, other: 0 };
  let launch = 0;

  before(async () => {
    demo = await inProcessDemo('scopes');
    const owner = await demo.user('owner@example.com');
    mel = await demo.user('mel@example.com', { roles: ['member'] });
    ann = await demo.user('ann@example.com', { roles: ['analyst'] });
    const org = await demo.auth.orgs.create({ name: 'Acme', slug: 'acme', owner: owner.id });
    await demo.auth.orgs.addMember(org.id, mel.id, ['member']);
    launch = (await owner.call('POST', '/orgs/acme/projects', { name: 'Launch' })).body.project.id;
    const secret = (await owner.call('POST', '/orgs/acme/projects', { name: 'Secret' })).body.project.id;
    expect((await owner.call('POST', `/orgs/acme/projects/${launch}/members`, { user_id: mel.id })).status).to.equal(
      204,
    );
    tasks.mine = (
      await owner.call('POST', '/orgs/acme/tasks', { project_id: launch, title: 'Ship it', assignee_id: mel.id })
    ).body.task.id;
    tasks.other = (
      await owner.call('POST', '/orgs/acme/tasks', { project_id: launch, title: 'Write the notes' })
    ).body.task.id;
    await owner.call('POST', '/orgs/acme/tasks', { project_id: secret, title: 'Plan' });
  });
  after(() => demo?.close());

  const refusedByScopes = (answer: { status: number; body: { code?: string; detail?: string } }) => ({
    status: answer.status,
    code: answer.body.code,
    detail: answer.body.detail,
  });

  it('the demo defines its scopes, each with a description (what the tokens page offers)', () => {
    expect(demo.auth.scopes.map(({ name }) => name)).to.deep.equal([
      'notes:read',
      'notes:write',
      'projects:read',
      'projects:write',
      'reports:read',
      'tasks:read',
      'tasks:write',
    ]);
    expect(demo.auth.scopes.find(({ name }) => name === 'tasks:read')).to.deep.equal({
      name: 'tasks:read',
      description: 'Read projects and their tasks',
    });
  });

  it('a tasks:read token reads the tasks its owner reads, and is refused creating or updating one (403 forbidden); the same user without scopes may', async () => {
    const reader = await mel.token({ scopes: ['tasks:read'] });
    const listed = await reader.call('GET', '/orgs/acme/tasks');
    expect(listed.status).to.equal(200);
    expect(listed.body).to.deep.equal((await mel.call('GET', '/orgs/acme/tasks')).body);
    expect(listed.body.tasks.map((task: { id: number }) => task.id)).to.deep.equal([tasks.mine, tasks.other]);
    expect(await reader.call('GET', `/orgs/acme/tasks/${tasks.mine}`)).to.deep.include({ status: 200 });

    expect(
      refusedByScopes(await reader.call('POST', '/orgs/acme/tasks', { project_id: launch, title: 'By the reader' })),
    ).to.deep.equal({ status: 403, code: 'forbidden', detail: SCOPE_REFUSAL });
    expect(refusedByScopes(await reader.call('PATCH', `/orgs/acme/tasks/${tasks.mine}`, { done: true }))).to.deep.equal(
      { status: 403, code: 'forbidden', detail: SCOPE_REFUSAL },
    );
    expect((await mel.call('GET', `/orgs/acme/tasks/${tasks.mine}`)).body.task.done, 'unchanged').to.equal(false);

    expect((await mel.call('POST', '/orgs/acme/tasks', { project_id: launch, title: 'By mel' })).status).to.equal(201);
    expect(await mel.call('PATCH', `/orgs/acme/tasks/${tasks.mine}`, { done: true })).to.deep.include({ status: 200 });
    // tasks:write writes as far as the owner's roles go: a member still sets no assignee.
    const writer = await mel.token({ scopes: ['tasks:write'] });
    expect((await writer.call('PATCH', `/orgs/acme/tasks/${tasks.mine}`, { done: false })).body.task.done).to.equal(
      false,
    );
    expect((await writer.call('PATCH', `/orgs/acme/tasks/${tasks.mine}`, { assignee_id: null })).status).to.equal(403);
  });

  it("accessibleBy through the request selects exactly the rows the token's ability allows", async () => {
    const em = await demo.em();
    const rows = await em.find(
      Task,
      { org_id: { $ne: null } },
      { populate: ['project.members'], orderBy: { id: 'asc' } },
    );
    for (const scopes of [['tasks:read'], ['tasks:write'], ['projects:read'], ['notes:read', 'reports:read'], []]) {
      const token = await mel.token({ scopes });
      const ability = await demo.auth.abilityFor(
        { id: mel.id, email: mel.email, is_admin: false, roles: ['member'] },
        { org: 'acme', scopes },
      );
      const allowed = rows.filter((row) => ability.can('read', subject('Task', row)));
      const listed = (await token.call('GET', '/orgs/acme/tasks')).body.tasks.map((task: { id: number }) => task.id);
      expect(listed, scopes.join(' ') || 'no scopes').to.deep.equal(allowed.map((row) => row.id));
      expect(listed.length > 0, scopes.join(' ') || 'no scopes').to.equal(
        scopes.length === 0 || scopes.some((scope) => scope.startsWith('tasks:')),
      );
    }
    const projectsOnly = await mel.token({ scopes: ['projects:read'] });
    expect(
      (await projectsOnly.call('GET', '/orgs/acme/projects')).body.projects.map(
        (project: { name: string }) => project.name,
      ),
    ).to.deep.equal(['Launch']);
    // No task at all, before any is loaded: the same 403 for a task that exists and one that does not.
    expect(refusedByScopes(await projectsOnly.call('GET', `/orgs/acme/tasks/${tasks.mine}`))).to.deep.equal({
      status: 403,
      code: 'forbidden',
      detail: SCOPE_REFUSAL,
    });
    expect(refusedByScopes(await projectsOnly.call('GET', '/orgs/acme/tasks/99999'))).to.deep.equal({
      status: 403,
      code: 'forbidden',
      detail: SCOPE_REFUSAL,
    });
  });

  it('the global routes too: reports within reports:read, notes within notes:read and notes:write', async () => {
    const notesOnly = await ann.token({ scopes: ['notes:read'] });
    expect((await notesOnly.call('GET', '/reports')).body).to.deep.equal({ reports: [] });
    expect(refusedByScopes(await notesOnly.call('GET', '/reports/north'))).to.deep.equal({
      status: 403,
      code: 'forbidden',
      detail: SCOPE_REFUSAL,
    });
    const reportsRead = await ann.token({ scopes: ['reports:read'] });
    expect(
      (await reportsRead.call('GET', '/reports')).body.reports.map((report: { team: string }) => report.team),
    ).to.deep.equal(['north', 'north']);

    expect(refusedByScopes(await notesOnly.call('POST', '/notes', { title: 'Read-only', body: '' }))).to.deep.equal({
      status: 403,
      code: 'forbidden',
      detail: SCOPE_REFUSAL,
    });
    const writer = await ann.token({ scopes: ['notes:write'] });
    const note = await writer.call('POST', '/notes', { title: 'Written', body: 'with notes:write' });
    expect(note.status).to.equal(201);
    expect(await notesOnly.call('GET', `/notes/${note.body.id}`)).to.deep.include({ status: 200 });
    expect(
      refusedByScopes(await notesOnly.call('PATCH', `/notes/${note.body.id}`, { title: 'Changed' })),
    ).to.deep.equal({ status: 403, code: 'forbidden', detail: SCOPE_REFUSAL });
    expect((await writer.call('PATCH', `/notes/${note.body.id}`, { title: 'Changed' })).body.title).to.equal('Changed');
  });

  it('a scope the demo does not define is 422 unknown_scope when creating a token', async () => {
    const error = await demo.auth.tokens
      .create(mel.id, { name: 'typo', scopes: ['tasks:raed'] })
      .catch((caught: unknown) => caught);
    expect(error).to.include({ code: 'unknown_scope', status: 422 });
  });
});
