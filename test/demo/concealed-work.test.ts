/**
 * `require({ load, conceal })` answers a resource the caller may not see as it answers a missing
 * one (404): the demo's task routes, whose rules follow `project.members` and `project.archived`.
 * The work before the answer must not tell them apart either: the statements a member's request
 * runs for a task of a project they are not in are as many as for a task id that does not exist.
 * (The demo's `load` reads the relations its rules follow with the task, in one statement; a
 * `load` that does not leaves the package to read them after, for an existing task only:
 * docs/authorization.md#hiding-what-a-user-may-not-see-conceal.)
 */
import { expect } from 'chai';
import { inProcessDemo, type DemoUser, type InProcessDemo } from './in-process.js';

describe('demo: a concealed task costs what a missing one does', () => {
  let demo: InProcessDemo;
  let member: DemoUser;
  let viewer: DemoUser;
  const tasks = { secret: 0, archived: 0, mine: 0 };

  before(async () => {
    demo = await inProcessDemo('concealed-work');
    const [owner, admin] = [await demo.user('cw-owner@example.com'), await demo.user('cw-admin@example.com')];
    [member, viewer] = [await demo.user('cw-member@example.com'), await demo.user('cw-viewer@example.com')];
    const org = await demo.auth.orgs.create({ name: 'Concealed', slug: 'concealed', owner: owner.id });
    await demo.auth.orgs.addMember(org.id, admin.id, ['admin']);
    await demo.auth.orgs.addMember(org.id, member.id, ['member']);
    await demo.auth.orgs.addMember(org.id, viewer.id, ['viewer']);
    const project = async (name: string, archived = false) =>
      (await admin.call('POST', '/orgs/concealed/projects', { name, archived })).body.project.id as number;
    const [launch, secret, old] = [await project('Launch'), await project('Secret'), await project('Old', true)];
    expect(
      (await admin.call('POST', `/orgs/concealed/projects/${launch}/members`, { user_id: member.id })).status,
    ).to.equal(204);
    const task = async (project_id: number) =>
      (await owner.call('POST', '/orgs/concealed/tasks', { project_id, title: 'T' })).body.task.id as number;
    tasks.secret = await task(secret);
    tasks.archived = await task(old);
    tasks.mine = await task(launch);
  });
  after(() => demo?.close());

  /** The statements `user`'s GET of the task runs (asked twice: the second, with the caches warm). */
  async function cost(user: DemoUser, id: number, status: number): Promise<number> {
    await user.call('GET', `/orgs/concealed/tasks/${id}`);
    const before = demo.statements();
    const response = await user.call('GET', `/orgs/concealed/tasks/${id}`);
    expect(response.status, JSON.stringify(response.body)).to.equal(status);
    return demo.statements() - before;
  }

  it('a member: a task of a project they are not in is 404, with the statements of a missing task', async () => {
    const missing = await cost(member, 999_999, 404);
    expect(await cost(member, tasks.secret, 404)).to.equal(missing);
    expect(await cost(member, tasks.mine, 200)).to.equal(missing);
  });

  it('a viewer: a task of an archived project is 404, with the statements of a missing task', async () => {
    const missing = await cost(viewer, 999_998, 404);
    expect(await cost(viewer, tasks.archived, 404)).to.equal(missing);
  });
});
