/**
 * The demo's project tracker, by property (CONTRACT-3 §20.5, issue 28 item 7): for generated
 * members with random organization roles in two organizations, projects (archived or not) with
 * random members, and tasks in both, every user's list routes (`GET /orgs/:org/projects` and
 * `/tasks`, by `accessibleBy` through `project.members`) return exactly:
 *
 * - the tasks the single route (`GET /orgs/:org/tasks/:id`, a `load` guard) lets them read, with
 *   the same JSON, and no other: every task of both organizations is asked for through the URL of
 *   each organization;
 * - the rows §20.5's table allows, written here as a model of its own (owner and admin: all;
 *   member: the projects they work on and their tasks; viewer: every project, and the tasks of
 *   projects not archived; a global admin: all), never a row of another organization;
 *
 * and someone of neither the organization nor the global admins gets 404 for all of it. Each case
 * is built through the demo's own routes by the organization's founder, in two new organizations.
 */
import { expect } from 'chai';
import fc from 'fast-check';
import { inProcessDemo, type DemoUser, type InProcessDemo } from './in-process.js';

const ORG_ROLES = ['owner', 'admin', 'member', 'viewer'] as const;
type OrgRole = (typeof ORG_ROLES)[number];
/** Users 0 to 3 of the pool; user 3 also holds the global role admin. */
const USERS = 4;
const GLOBAL_ADMIN = 3;

interface OrgCase {
  /** Each user's roles in the organization; none: not a member. */
  roles: OrgRole[][];
  projects: { archived: boolean; members: number[] }[];
  /** `project`: an index into `projects` (modulo); `assignee`: a user index (made a project member first), or null. */
  tasks: { project: number; assignee: number | null; done: boolean }[];
}
type Case = [OrgCase, OrgCase];

const userIndex = fc.integer({ min: 0, max: USERS - 1 });
const orgCase: fc.Arbitrary<OrgCase> = fc.record({
  roles: fc.array(fc.subarray([...ORG_ROLES]), { minLength: USERS, maxLength: USERS }),
  projects: fc.array(fc.record({ archived: fc.boolean(), members: fc.uniqueArray(userIndex, { maxLength: USERS }) }), {
    minLength: 1,
    maxLength: 3,
  }),
  tasks: fc.array(fc.record({ project: fc.nat(), assignee: fc.option(userIndex), done: fc.boolean() }), {
    maxLength: 5,
  }),
});

interface Built {
  slug: string;
  id: number;
  projects: { id: number; archived: boolean; members: Set<number> }[];
  tasks: { id: number; project: number }[];
}

describe('demo: the project tracker, by property', () => {
  let demo: InProcessDemo;
  let founder: DemoUser;
  const users: DemoUser[] = [];
  let orgs = 0;

  before(async () => {
    demo = await inProcessDemo('projects-property');
    founder = await demo.user('founder@example.com');
    for (let i = 0; i < USERS; i++)
      users.push(await demo.user(`user${i}@example.com`, i === GLOBAL_ADMIN ? { roles: ['admin'] } : {}));
  });
  after(() => demo?.close());

  /** A new organization of the founder's, filled as the case says, through the demo's routes. */
  async function build(c: OrgCase): Promise<Built> {
    const slug = `org-${++orgs}`;
    const org = await demo.auth.orgs.create({ name: slug, slug, owner: founder.id });
    for (const [i, roles] of c.roles.entries())
      if (roles.length > 0) await demo.auth.orgs.addMember(org.id, users[i]!.id, roles);
    const ok = async (answer: Promise<{ status: number; body: any }>, status: number) => {
      const { status: actual, body } = await answer;
      expect(actual, JSON.stringify(body)).to.equal(status);
      return body;
    };
    const projects: Built['projects'] = [];
    for (const [n, project] of c.projects.entries()) {
      const { project: made } = await ok(
        founder.call('POST', `/orgs/${slug}/projects`, { name: `project ${n}`, archived: project.archived }),
        201,
      );
      // Only members of the organization can work on its projects (the route refuses anyone else).
      const members = project.members.filter((i) => c.roles[i]!.length > 0);
      for (const i of members)
        await ok(founder.call('POST', `/orgs/${slug}/projects/${made.id}/members`, { user_id: users[i]!.id }), 204);
      projects.push({ id: made.id, archived: project.archived, members: new Set(members.map((i) => users[i]!.id)) });
    }
    const tasks: Built['tasks'] = [];
    for (const [n, task] of c.tasks.entries()) {
      const project = task.project % projects.length;
      const assignee =
        task.assignee !== null && projects[project]!.members.has(users[task.assignee]!.id)
          ? users[task.assignee]!.id
          : null;
      const { task: made } = await ok(
        founder.call('POST', `/orgs/${slug}/tasks`, {
          project_id: projects[project]!.id,
          title: `task ${n}`,
          assignee_id: assignee,
        }),
        201,
      );
      if (task.done) await ok(founder.call('PATCH', `/orgs/${slug}/tasks/${made.id}`, { done: true }), 200);
      tasks.push({ id: made.id, project });
    }
    return { slug, id: org.id, projects, tasks };
  }

  /** What §20.5's table lets user `i` read in the organization. */
  function model(c: OrgCase, built: Built, i: number): { projects: number[]; tasks: number[] } {
    const roles = new Set<string>(c.roles[i]);
    const user = users[i]!.id;
    const all = i === GLOBAL_ADMIN || roles.has('owner') || roles.has('admin');
    const readsProject = (p: Built['projects'][number]) =>
      all || roles.has('viewer') || (roles.has('member') && p.members.has(user));
    const readsTask = (p: Built['projects'][number]) =>
      all || (roles.has('viewer') && !p.archived) || (roles.has('member') && p.members.has(user));
    return {
      projects: built.projects.filter(readsProject).map((p) => p.id),
      tasks: built.tasks.filter((t) => readsTask(built.projects[t.project]!)).map((t) => t.id),
    };
  }

  async function check(cases: Case): Promise<void> {
    const built = [await build(cases[0]), await build(cases[1])];
    const everyTask = built.flatMap((org) => org.tasks.map((task) => task.id));
    for (const [o, org] of built.entries()) {
      for (const [i, user] of users.entries()) {
        const where = `user ${i} in ${org.slug} (${JSON.stringify(cases[o]!.roles[i])})`;
        const projects = await user.call('GET', `/orgs/${org.slug}/projects`);
        const tasks = await user.call('GET', `/orgs/${org.slug}/tasks`);
        if (cases[o]!.roles[i]!.length === 0 && i !== GLOBAL_ADMIN) {
          expect([projects.status, tasks.status], where).to.deep.equal([404, 404]);
          for (const id of everyTask)
            expect((await user.call('GET', `/orgs/${org.slug}/tasks/${id}`)).status, `${where}: task ${id}`).to.equal(
              404,
            );
          continue;
        }
        expect([projects.status, tasks.status], where).to.deep.equal([200, 200]);
        const listed = new Map<number, unknown>(tasks.body.tasks.map((task: { id: number }) => [task.id, task]));
        for (const id of everyTask) {
          const single = await user.call('GET', `/orgs/${org.slug}/tasks/${id}`);
          if (listed.has(id))
            expect(single, `${where}: task ${id}`).to.deep.equal({ status: 200, body: { task: listed.get(id) } });
          else expect(single.status, `${where}: task ${id} is not listed`).to.equal(404);
        }
        const rows = [...projects.body.projects, ...tasks.body.tasks] as { org_id: number }[];
        expect(
          rows.filter((row) => row.org_id !== org.id),
          `${where}: rows of another organization`,
        ).to.deep.equal([]);
        const expected = model(cases[o]!, org, i);
        expect(
          { projects: projects.body.projects.map((p: { id: number }) => p.id), tasks: [...listed.keys()] },
          where,
        ).to.deep.equal(expected);
      }
    }
  }

  it('lists exactly what the single routes allow, as the roles table says, and nothing of another organization', async () => {
    await fc.assert(
      fc.asyncProperty(fc.tuple(orgCase, orgCase), (cases) => check(cases)),
      { numRuns: 15 },
    );
  });
});
