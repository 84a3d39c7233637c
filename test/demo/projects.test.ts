/**
 * The demo's project tracker (CONTRACT-3 §20.5) over HTTP: owners, admins, members and viewers of
 * two organizations, acme and globex, each with a launch project (the member works on it), an old
 * site (archived; the member works on it too) and a secret project (the member does not), and
 * tasks in each. What each role may do is policies/roles.json's `orgRoles`; every route is behind
 * `orgRequired()`, and nothing of one organization reaches another.
 */
import { expect } from 'chai';
import request from 'supertest';
import { inProcessDemo, type DemoUser, type InProcessDemo } from './in-process.js';

const ROLES = ['owner', 'admin', 'member', 'viewer'] as const;
type Role = (typeof ROLES)[number];
const ORGS = ['acme', 'globex'] as const;
type Org = (typeof ORGS)[number];

interface Tracker {
  id: number;
  projects: { launch: number; old: number; secret: number };
  tasks: { launch: number; mine: number; old: number; secret: number };
}

describe('demo: the project tracker', () => {
  let demo: InProcessDemo;
  const people = {} as Record<Org, Record<Role, DemoUser>>;
  const tracker = {} as Record<Org, Tracker>;
  let outsider: DemoUser;
  let boss: DemoUser;

  before(async () => {
    demo = await inProcessDemo('projects');
    outsider = await demo.user('outsider@example.com');
    boss = await demo.user('boss@example.com', { roles: ['admin'], isAdmin: true });
    for (const slug of ORGS) {
      people[slug] = {} as Record<Role, DemoUser>;
      for (const role of ROLES) people[slug][role] = await demo.user(`${slug}-${role}@example.com`);
      const { owner, admin, member, viewer } = people[slug];
      const org = await demo.auth.orgs.create({ name: slug, slug, owner: owner.id });
      for (const [user, role] of [
        [admin, 'admin'],
        [member, 'member'],
        [viewer, 'viewer'],
      ] as const)
        await demo.auth.orgs.addMember(org.id, user.id, [role]);

      const project = async (name: string, archived = false) => {
        const created = await admin.call('POST', `/orgs/${slug}/projects`, { name, archived });
        expect(created.status, JSON.stringify(created.body)).to.equal(201);
        return created.body.project.id as number;
      };
      const projects = {
        launch: await project('Launch'),
        old: await project('Old site', true),
        secret: await project('Secret'),
      };
      for (const id of [projects.launch, projects.old])
        expect(
          (await admin.call('POST', `/orgs/${slug}/projects/${id}/members`, { user_id: member.id })).status,
        ).to.equal(204);
      expect(
        (await admin.call('POST', `/orgs/${slug}/projects/${projects.secret}/members`, { user_id: admin.id })).status,
      ).to.equal(204);

      const task = async (project_id: number, title: string, assignee_id?: number) => {
        const created = await owner.call('POST', `/orgs/${slug}/tasks`, { project_id, title, assignee_id });
        expect(created.status, JSON.stringify(created.body)).to.equal(201);
        return created.body.task.id as number;
      };
      tracker[slug] = {
        id: org.id,
        projects,
        tasks: {
          launch: await task(projects.launch, 'Write the notes'),
          mine: await task(projects.launch, 'Ship it', member.id),
          old: await task(projects.old, 'Take it down', member.id),
          secret: await task(projects.secret, 'Plan', admin.id),
        },
      };
    }
  });
  after(() => demo?.close());

  const names = (rows: { name?: string; title?: string }[]) => rows.map((row) => row.name ?? row.title);

  describe('GET /orgs/:org/projects (accessibleBy)', () => {
    for (const slug of ORGS) {
      it(`${slug}: owners, admins and viewers list every project, archived too; a member those they work on`, async () => {
        for (const role of ['owner', 'admin', 'viewer'] as const) {
          const { status, body } = await people[slug][role].call('GET', `/orgs/${slug}/projects`);
          expect({ status, names: names(body.projects) }, role).to.deep.equal({
            status: 200,
            names: ['Launch', 'Old site', 'Secret'],
          });
          expect(body.projects.every((project: { org_id: number }) => project.org_id === tracker[slug].id)).to.equal(
            true,
          );
        }
        expect(names((await people[slug].member.call('GET', `/orgs/${slug}/projects`)).body.projects)).to.deep.equal([
          'Launch',
          'Old site',
        ]);
      });
    }

    it('answers the organization by id as by slug; a project is { id, org_id, name, archived }', async () => {
      const { body } = await people.acme.viewer.call('GET', `/orgs/${tracker.acme.id}/projects`);
      expect(body.projects[1]).to.deep.equal({
        id: tracker.acme.projects.old,
        org_id: tracker.acme.id,
        name: 'Old site',
        archived: true,
      });
    });

    it("a global admin, no member, lists that organization's projects only", async () => {
      expect(names((await boss.call('GET', '/orgs/globex/projects')).body.projects)).to.deep.equal([
        'Launch',
        'Old site',
        'Secret',
      ]);
      expect(
        (await boss.call('GET', '/orgs/globex/projects')).body.projects.map((p: { id: number }) => p.id),
      ).to.deep.equal(Object.values(tracker.globex.projects));
    });
  });

  describe('POST and PATCH /orgs/:org/projects', () => {
    it('owners and admins create projects (201 { project }); members and viewers 403', async () => {
      const created = await people.acme.owner.call('POST', '/orgs/acme/projects', { name: 'Docs' });
      expect(created).to.deep.equal({
        status: 201,
        body: { project: { id: created.body.project.id, org_id: tracker.acme.id, name: 'Docs', archived: false } },
      });
      for (const role of ['member', 'viewer'] as const) {
        const refused = await people.acme[role].call('POST', '/orgs/acme/projects', { name: 'Mine' });
        expect({ status: refused.status, code: refused.body.code }, role).to.deep.equal({
          status: 403,
          code: 'forbidden',
        });
      }
    });

    it('checks the body: 400 bad_request naming each field', async () => {
      const refused = async (body: unknown) => {
        const answer = await people.acme.admin.call('POST', '/orgs/acme/projects', body);
        expect(answer.status, JSON.stringify(body)).to.equal(400);
        expect(answer.body.code).to.equal('bad_request');
        return answer.body.errors.map((error: { field: string }) => error.field);
      };
      expect(await refused({})).to.deep.equal(['name']);
      expect(await refused({ name: ' ', archived: 'yes' })).to.deep.equal(['name', 'archived']);
      expect(await refused({ name: 'x'.repeat(101) })).to.deep.equal(['name']);
      expect(await refused({ name: 'x', org_id: tracker.globex.id })).to.deep.equal(['org_id']);
    });

    it('admins rename and archive; a member (who reads it) and a viewer 403; nothing changes', async () => {
      const { launch } = tracker.acme.projects;
      for (const role of ['member', 'viewer'] as const)
        expect(
          (await people.acme[role].call('PATCH', `/orgs/acme/projects/${launch}`, { archived: true })).status,
          role,
        ).to.equal(403);
      const created = await people.acme.admin.call('POST', '/orgs/acme/projects', { name: 'Draft' });
      const changed = await people.acme.admin.call('PATCH', `/orgs/acme/projects/${created.body.project.id}`, {
        name: 'Final',
        archived: true,
      });
      expect(changed).to.deep.equal({
        status: 200,
        body: { project: { id: created.body.project.id, org_id: tracker.acme.id, name: 'Final', archived: true } },
      });
      expect(
        (await people.acme.viewer.call('GET', '/orgs/acme/projects')).body.projects.find(
          (p: { name: string }) => p.name === 'Launch',
        ).archived,
      ).to.equal(false);
    });

    it("another organization's project, through this organization's URL, is missing: 404", async () => {
      for (const path of [
        `/orgs/acme/projects/${tracker.globex.projects.launch}`,
        '/orgs/acme/projects/999999',
        '/orgs/acme/projects/abc',
      ]) {
        const answer = await people.acme.owner.call('PATCH', path, { name: 'Taken' });
        expect({ status: answer.status, code: answer.body.code }, path).to.deep.equal({
          status: 404,
          code: 'not_found',
        });
      }
      expect(names((await people.globex.viewer.call('GET', '/orgs/globex/projects')).body.projects)).to.deep.equal([
        'Launch',
        'Old site',
        'Secret',
      ]);
    });
  });

  describe('POST /orgs/:org/projects/:id/members', () => {
    it('admins add a member of the organization (204, and again 204); anyone else of another organization is 400 naming user_id', async () => {
      const { secret } = tracker.acme.projects;
      const { viewer } = people.acme;
      expect(
        (
          await people.acme.admin.call('POST', `/orgs/acme/projects/${secret}/members`, {
            user_id: people.globex.member.id,
          })
        ).body.errors,
      ).to.deep.equal([{ field: 'user_id', message: 'is not a member of this organization' }]);
      expect(
        (await people.acme.admin.call('POST', `/orgs/acme/projects/${secret}/members`, { user_id: 'x' })).status,
      ).to.equal(400);
      // A viewer on a project is still a viewer: it reads the same tasks.
      expect(
        (await people.acme.admin.call('POST', `/orgs/acme/projects/${secret}/members`, { user_id: viewer.id })).status,
      ).to.equal(204);
      expect(
        (await people.acme.admin.call('POST', `/orgs/acme/projects/${secret}/members`, { user_id: viewer.id })).status,
      ).to.equal(204);
    });

    it('members and viewers 403; a project of another organization 404', async () => {
      for (const role of ['member', 'viewer'] as const) {
        expect(
          (
            await people.acme[role].call('POST', `/orgs/acme/projects/${tracker.acme.projects.launch}/members`, {
              user_id: people.acme[role].id,
            })
          ).status,
          role,
        ).to.equal(403);
      }
      expect(
        (
          await people.acme.admin.call('POST', `/orgs/acme/projects/${tracker.globex.projects.launch}/members`, {
            user_id: people.acme.admin.id,
          })
        ).status,
      ).to.equal(404);
    });
  });

  describe('GET /orgs/:org/tasks and /orgs/:org/tasks/:id', () => {
    const expected: Record<Role, (keyof Tracker['tasks'])[]> = {
      owner: ['launch', 'mine', 'old', 'secret'],
      admin: ['launch', 'mine', 'old', 'secret'],
      // The tasks of the projects they work on (project.members.user_id), the archived one too.
      member: ['launch', 'mine', 'old'],
      // The tasks of projects that are not archived (project.archived).
      viewer: ['launch', 'mine', 'secret'],
    };
    for (const slug of ORGS) {
      for (const role of ROLES) {
        it(`${slug} ${role}: lists ${expected[role].join(', ')}; reads each of them alone, and no other task of either organization (404)`, async () => {
          const user = people[slug][role];
          const listed = await user.call('GET', `/orgs/${slug}/tasks`);
          expect(listed.status).to.equal(200);
          expect(listed.body.tasks.map((task: { id: number }) => task.id)).to.deep.equal(
            expected[role].map((name) => tracker[slug].tasks[name]),
          );
          for (const org of ORGS) {
            for (const id of Object.values(tracker[org].tasks)) {
              const single = await user.call('GET', `/orgs/${slug}/tasks/${id}`);
              const inList = listed.body.tasks.find((task: { id: number }) => task.id === id);
              if (inList) expect(single, `task ${id}`).to.deep.equal({ status: 200, body: { task: inList } });
              else
                expect({ status: single.status, code: single.body.code }, `task ${id}`).to.deep.equal({
                  status: 404,
                  code: 'not_found',
                });
            }
          }
        });
      }
    }

    it('a task is { id, org_id, project_id, title, assignee_id, done }', async () => {
      const { body } = await people.acme.member.call('GET', `/orgs/acme/tasks/${tracker.acme.tasks.mine}`);
      expect(body).to.deep.equal({
        task: {
          id: tracker.acme.tasks.mine,
          org_id: tracker.acme.id,
          project_id: tracker.acme.projects.launch,
          title: 'Ship it',
          assignee_id: people.acme.member.id,
          done: false,
        },
      });
    });
  });

  describe('POST /orgs/:org/tasks', () => {
    it('a member creates tasks in the projects they work on; a project they cannot read, or of another organization, is 400 naming project_id', async () => {
      const { member } = people.acme;
      const created = await member.call('POST', '/orgs/acme/tasks', {
        project_id: tracker.acme.projects.launch,
        title: 'Test it',
        assignee_id: member.id,
      });
      expect(created.status).to.equal(201);
      expect(created.body.task).to.deep.include({
        org_id: tracker.acme.id,
        project_id: tracker.acme.projects.launch,
        title: 'Test it',
        assignee_id: member.id,
        done: false,
      });
      for (const project_id of [tracker.acme.projects.secret, tracker.globex.projects.launch, 999999]) {
        const refused = await member.call('POST', '/orgs/acme/tasks', { project_id, title: 'Sneak' });
        expect({ status: refused.status, errors: refused.body.errors }, String(project_id)).to.deep.equal({
          status: 400,
          errors: [{ field: 'project_id', message: 'is not a project of this organization that you can read' }],
        });
      }
    });

    it('a viewer 403; the assignee must work on the project; the body is checked', async () => {
      expect(
        (
          await people.acme.viewer.call('POST', '/orgs/acme/tasks', {
            project_id: tracker.acme.projects.launch,
            title: 'x',
          })
        ).status,
      ).to.equal(403);
      const notOnProject = await people.acme.admin.call('POST', '/orgs/acme/tasks', {
        project_id: tracker.acme.projects.launch,
        title: 'x',
        assignee_id: people.acme.viewer.id,
      });
      expect(notOnProject.body.errors).to.deep.equal([
        { field: 'assignee_id', message: 'is not a member of the project' },
      ]);
      const bad = await people.acme.admin.call('POST', '/orgs/acme/tasks', { title: '', done: 1, org_id: 2 });
      expect(bad.body.errors.map((error: { field: string }) => error.field)).to.deep.equal([
        'project_id',
        'title',
        'done',
        'org_id',
      ]);
    });
  });

  describe('PATCH /orgs/:org/tasks/:id (fields checked)', () => {
    it('a member updates title and done of a task assigned to them', async () => {
      const changed = await people.globex.member.call('PATCH', `/orgs/globex/tasks/${tracker.globex.tasks.mine}`, {
        title: 'Shipped',
        done: true,
      });
      expect(changed.status).to.equal(200);
      expect(changed.body.task).to.deep.include({ title: 'Shipped', done: true, assignee_id: people.globex.member.id });
    });

    it('a member may not set assignee_id (403 naming it), nor change a task not assigned to them (403), nor one they cannot read (404)', async () => {
      const { member } = people.globex;
      const reassign = await member.call('PATCH', `/orgs/globex/tasks/${tracker.globex.tasks.old}`, {
        done: true,
        assignee_id: null,
      });
      expect({ status: reassign.status, errors: reassign.body.errors }).to.deep.equal({
        status: 403,
        errors: [{ field: 'assignee_id', message: 'you may not update this field' }],
      });
      expect(
        (await member.call('PATCH', `/orgs/globex/tasks/${tracker.globex.tasks.launch}`, { done: true })).status,
      ).to.equal(403);
      expect(
        (await member.call('PATCH', `/orgs/globex/tasks/${tracker.globex.tasks.secret}`, { done: true })).status,
      ).to.equal(404);
      const unchanged = await people.globex.owner.call('GET', `/orgs/globex/tasks/${tracker.globex.tasks.old}`);
      expect(unchanged.body.task).to.deep.include({ done: false, assignee_id: member.id });
    });

    it('a viewer 403; an admin reassigns to someone on the project, not to anyone else (400)', async () => {
      const { admin, member, viewer } = people.globex;
      expect(
        (await viewer.call('PATCH', `/orgs/globex/tasks/${tracker.globex.tasks.launch}`, { done: true })).status,
      ).to.equal(403);
      const assigned = await admin.call('PATCH', `/orgs/globex/tasks/${tracker.globex.tasks.launch}`, {
        assignee_id: member.id,
      });
      expect(assigned.body.task).to.deep.include({ assignee_id: member.id });
      expect(
        (await admin.call('PATCH', `/orgs/globex/tasks/${tracker.globex.tasks.launch}`, { assignee_id: viewer.id }))
          .body.errors,
      ).to.deep.equal([{ field: 'assignee_id', message: 'is not a member of the project' }]);
      expect(
        (
          await admin.call('PATCH', `/orgs/globex/tasks/${tracker.globex.tasks.launch}`, {
            project_id: tracker.globex.projects.secret,
          })
        ).body.errors,
      ).to.deep.equal([{ field: 'project_id', message: 'is not a field you can set here' }]);
    });

    it("another organization's task through this organization's URL: 404, for its owner too", async () => {
      expect(
        (await people.acme.owner.call('PATCH', `/orgs/acme/tasks/${tracker.globex.tasks.launch}`, { title: 'Mine' }))
          .status,
      ).to.equal(404);
    });
  });

  describe('between organizations', () => {
    it('someone of no organization, and a member of the other, get 404 for every route of an organization', async () => {
      const { launch } = tracker.acme.projects;
      const task = tracker.acme.tasks.launch;
      const routes: ['GET' | 'POST' | 'PATCH', string, unknown?][] = [
        ['GET', '/orgs/acme/projects'],
        ['POST', '/orgs/acme/projects', { name: 'x' }],
        ['PATCH', `/orgs/acme/projects/${launch}`, { name: 'x' }],
        ['POST', `/orgs/acme/projects/${launch}/members`, { user_id: outsider.id }],
        ['GET', '/orgs/acme/tasks'],
        ['POST', '/orgs/acme/tasks', { project_id: launch, title: 'x' }],
        ['GET', `/orgs/acme/tasks/${task}`],
        ['PATCH', `/orgs/acme/tasks/${task}`, { done: true }],
      ];
      for (const user of [outsider, ...ROLES.map((role) => people.globex[role])]) {
        for (const [method, path, body] of routes) {
          const answer = await user.call(method, path, body);
          expect({ status: answer.status, code: answer.body.code }, `${user.email}: ${method} ${path}`).to.deep.equal({
            status: 404,
            code: 'not_found',
          });
        }
      }
    });

    it('every row any member lists is of the organization in the URL', async () => {
      for (const slug of ORGS) {
        for (const role of ROLES) {
          for (const list of ['projects', 'tasks']) {
            const { body } = await people[slug][role].call('GET', `/orgs/${slug}/${list}`);
            expect(
              body[list].filter((row: { org_id: number }) => row.org_id !== tracker[slug].id),
              `${slug} ${role} ${list}`,
            ).to.deep.equal([]);
          }
        }
      }
    });

    it('without a token: 401', async () => {
      expect((await request(demo.app).get('/orgs/acme/projects').set('Accept', 'application/json')).status).to.equal(
        401,
      );
    });
  });
});
