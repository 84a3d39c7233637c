/**
 * The organization commands: create-org, list-orgs, list-members, add-member, set-member-roles,
 * remove-member and delete-org, in this process against an SQLite file, checked through a ServiceAuth of our own on
 * the same file; one refusal in a real process, for its exit status as the shell sees it.
 */
import { expect } from 'chai';
import { mkdir, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { PASSWORD, temporaryDatabase, temporaryDirectory, type TestApp } from '../helpers/app.js';
import { ORG_ROLES, orgApp } from '../orgs/org-app.js';
import { runCli, type CliResult } from './cli-process.js';
import { runCliInProcess } from './in-process.js';

describe('CLI: create-org, list-orgs, list-members, add-member, set-member-roles, remove-member, delete-org', () => {
  let database: Awaited<ReturnType<typeof temporaryDatabase>>;
  let t: TestApp;
  /** The working directory: its ./policies defines the organization roles the commands may give. */
  let dir: string;
  const cli = (...args: string[]): Promise<CliResult> =>
    runCliInProcess(['auth', ...args, '--database', database.url], { cwd: dir });
  const failure = (stderr: string): CliResult => ({ code: 1, stdout: '', stderr: `${stderr}\n` });

  before(async () => {
    dir = await temporaryDirectory();
    await mkdir(join(dir, 'policies'));
    await writeFile(
      join(dir, 'policies', 'org-roles.json'),
      JSON.stringify({ orgRoles: Object.fromEntries(ORG_ROLES.map((role) => [role, []])) }),
    );
    database = await temporaryDatabase();
    t = await orgApp({ SERVICE_AUTH_DATABASE_URL: database.url });
    for (const name of ['ada', 'bob', 'cy'])
      await t.auth.users.create({ email: `${name}@example.com`, password: PASSWORD });
  });
  after(async () => {
    await t.auth.close();
    await database.remove();
    await rm(dir, { recursive: true, force: true });
  });

  it('create-org creates an organization owned by a user, its slug derived or given', async () => {
    expect(await cli('create-org', '--name', 'Acme Inc.', '--owner', 'ADA@example.com')).to.deep.equal({
      code: 0,
      stdout: 'Created organization acme-inc (id 1, "Acme Inc."), owned by ada@example.com (owner)\n',
      stderr: '',
    });
    expect(
      (await cli('create-org', '--name', 'Globex', '--slug', 'globex-corp', '--owner', 'bob@example.com')).stdout,
    ).to.contain('Created organization globex-corp (id 2');
    expect((await t.auth.orgs.members('acme-inc')).map((m) => [m.email, m.roles])).to.deep.equal([
      ['ada@example.com', ['owner']],
    ]);
    const [record] = await t.auth.audit.query({ type: 'org_created', limit: 1 });
    expect(record!.detail).to.include({ actor: 'cli', org: 'globex-corp' });
  });

  it('create-org refuses a taken or malformed slug, a bad name, an unknown owner, and no owner at all, creating nothing', async () => {
    const before = await t.auth.orgs.list();
    expect(
      await cli('create-org', '--name', 'Again', '--slug', 'acme-inc', '--owner', 'ada@example.com'),
    ).to.deep.equal(failure('Slug taken: an organization with the slug "acme-inc" exists'));
    expect(await cli('create-org', '--name', 'Bad', '--slug', 'Bad Slug', '--owner', 'ada@example.com')).to.deep.equal(
      failure('Invalid slug: "Bad Slug" is not a slug (2 to 48 of a-z 0-9 -, not digits alone)'),
    );
    expect(await cli('create-org', '--name', '', '--owner', 'ada@example.com')).to.deep.equal(
      failure('Invalid name: a name is 1 to 100 characters, without control characters'),
    );
    expect(await cli('create-org', '--name', 'Orphan', '--owner', 'nobody@example.com')).to.deep.equal(
      failure('Unknown email: no user with email nobody@example.com'),
    );
    const noOwner = await cli('create-org', '--name', 'Orphan');
    expect(noOwner.code).to.equal(2);
    expect(noOwner.stderr).to.contain('--owner');
    expect(await t.auth.orgs.list()).to.deep.equal(before);
  });

  it('create-org refuses an owner of SERVICE_AUTH_MAX_ORGS_PER_USER organizations, creating nothing', async () => {
    const before = await t.auth.orgs.list();
    const env = { SERVICE_AUTH_MAX_ORGS_PER_USER: '1' };
    const refused = await runCliInProcess(
      ['auth', 'create-org', '--name', 'Second', '--owner', 'ada@example.com', '--database', database.url],
      { cwd: dir, env },
    );
    const why =
      'This account owns 1 organization, the most one may (1); delete one, or hand its ownership to someone else, first';
    expect(refused).to.deep.equal(failure(`Too many organizations: ${why}`));
    expect(await t.auth.orgs.list()).to.deep.equal(before);
  });

  it('add-member and remove-member change the members; refusals say why and change nothing', async () => {
    expect(await cli('add-member', 'acme-inc', 'bob@example.com', '--role', 'member', '--role', 'admin')).to.deep.equal(
      {
        code: 0,
        stdout: 'Made bob@example.com a member of acme-inc (admin, member)\n',
        stderr: '',
      },
    );
    expect(await cli('add-member', '1', 'cy@example.com', '--role', 'viewer')).to.include({ code: 0 });
    const members = await t.auth.orgs.members('acme-inc');
    expect(await cli('add-member', 'acme-inc', 'bob@example.com', '--role', 'viewer')).to.deep.equal(
      failure('Already a member: bob@example.com is a member of acme-inc already'),
    );
    expect(await cli('add-member', 'acme-inc', 'nobody@example.com', '--role', 'viewer')).to.deep.equal(
      failure('Unknown email: no user with email nobody@example.com'),
    );
    expect(await cli('add-member', 'no-such-org', 'ada@example.com', '--role', 'viewer')).to.deep.equal(
      failure('Not found: no organization with slug "no-such-org"'),
    );
    expect((await cli('add-member', 'globex-corp', 'ada@example.com', '--role', 'bad role!')).stderr).to.match(
      /^Invalid roles: /,
    );
    expect((await cli('add-member', 'globex-corp', 'ada@example.com')).code).to.equal(2);
    expect(
      await cli('add-member', 'globex-corp', 'ada@example.com', '--role', 'viewr', '--role', 'member'),
    ).to.deep.equal(
      failure(
        'Unknown role: no organization role named "viewr"; did you mean "viewer"? (the organization roles are owner, admin, member, viewer)',
      ),
    );
    expect(await cli('remove-member', 'acme-inc', 'ada@example.com')).to.deep.equal(
      failure(
        'Last owner: ada@example.com is the last owner of acme-inc: give another member an owner role first, or delete the organization',
      ),
    );
    expect(await t.auth.orgs.members('acme-inc')).to.deep.equal(members);

    expect(await cli('remove-member', 'acme-inc', 'cy@example.com')).to.deep.equal({
      code: 0,
      stdout: 'Removed cy@example.com from acme-inc\n',
      stderr: '',
    });
    expect(await cli('remove-member', 'acme-inc', 'cy@example.com')).to.deep.equal(
      failure('Not found: cy@example.com is not a member of acme-inc'),
    );
    expect((await t.auth.orgs.members('acme-inc')).map((m) => m.email)).to.deep.equal([
      'ada@example.com',
      'bob@example.com',
    ]);
  });

  it("set-member-roles replaces a member's roles; refusals say why and change nothing", async () => {
    expect(await cli('set-member-roles', 'acme-inc', 'bob@example.com', '--role', 'viewer')).to.deep.equal({
      code: 0,
      stdout: 'bob@example.com now holds viewer in acme-inc (was admin, member)\n',
      stderr: '',
    });
    expect((await t.auth.orgs.members('acme-inc')).map((m) => [m.email, m.roles])).to.deep.equal([
      ['ada@example.com', ['owner']],
      ['bob@example.com', ['viewer']],
    ]);
    const [record] = await t.auth.audit.query({ type: 'member_roles_changed', limit: 1 });
    expect(record!.detail).to.include({
      actor: 'cli',
      org: 'acme-inc',
      roles: 'viewer',
      previous_roles: 'admin member',
    });
    expect(await cli('set-member-roles', '1', 'bob@example.com', '--role', 'member', '--role', 'admin')).to.include({
      code: 0,
      stderr: '',
    });
    expect(
      await cli('set-member-roles', 'acme-inc', 'bob@example.com', '--role', 'admin', '--role', 'member'),
    ).to.deep.equal({
      code: 0,
      stdout: 'bob@example.com already holds admin, member in acme-inc; nothing changed\n',
      stderr: '',
    });

    const members = await t.auth.orgs.members('acme-inc');
    expect(await cli('set-member-roles', 'acme-inc', 'bob@example.com', '--role', 'admn')).to.deep.equal(
      failure(
        'Unknown role: no organization role named "admn"; did you mean "admin"? (the organization roles are owner, admin, member, viewer)',
      ),
    );
    expect(await cli('set-member-roles', 'acme-inc', 'ada@example.com', '--role', 'admin')).to.deep.equal(
      failure(
        'Last owner: ada@example.com is the last owner of acme-inc: give another member an owner role first, or delete the organization',
      ),
    );
    expect(await cli('set-member-roles', 'acme-inc', 'cy@example.com', '--role', 'viewer')).to.deep.equal(
      failure('Not found: cy@example.com is not a member of acme-inc'),
    );
    expect(await cli('set-member-roles', 'no-such-org', 'bob@example.com', '--role', 'viewer')).to.deep.equal(
      failure('Not found: no organization with slug "no-such-org"'),
    );
    expect((await cli('set-member-roles', 'acme-inc', 'bob@example.com')).code).to.equal(2);
    expect(await t.auth.orgs.members('acme-inc')).to.deep.equal(members);
  });

  it('list-orgs prints a table, or JSON with the number of members', async () => {
    const orgs = await t.auth.orgs.list();
    const time = (iso: string) => iso.replace(/\.\d{3}Z$/, 'Z');
    expect(await cli('list-orgs')).to.deep.equal({
      code: 0,
      stdout: [
        'ID  Slug         Name       Members  Created',
        `1   acme-inc     Acme Inc.  2        ${time(orgs[0]!.created_at)}`,
        `2   globex-corp  Globex     1        ${time(orgs[1]!.created_at)}`,
        '',
      ].join('\n'),
      stderr: '',
    });
    const json = await cli('list-orgs', '--json');
    expect(JSON.parse(json.stdout)).to.deep.equal(orgs);
    expect(orgs.map((org) => Object.keys(org).sort())[0]).to.deep.equal([
      'created_at',
      'id',
      'members',
      'name',
      'slug',
    ]);
  });

  it('list-members prints a table, or JSON as the HTTP API shapes members', async () => {
    const members = await t.auth.orgs.members('acme-inc');
    const table = await cli('list-members', 'acme-inc');
    expect(table.stdout.split('\n').slice(0, 3)).to.deep.equal([
      'User ID  Email            Roles          Joined',
      `1        ada@example.com  owner          ${members[0]!.created_at.replace(/\.\d{3}Z$/, 'Z')}`,
      `2        bob@example.com  admin, member  ${members[1]!.created_at.replace(/\.\d{3}Z$/, 'Z')}`,
    ]);
    expect(JSON.parse((await cli('list-members', '1', '--json')).stdout)).to.deep.equal(members);
    expect(await cli('list-members', 'nope')).to.deep.equal(failure('Not found: no organization with slug "nope"'));
  });

  it('delete-org refuses an organization with other members than its owners (exit 1) unless --force', async () => {
    const refused = await runCli(['auth', 'delete-org', 'acme-inc', '--database', database.url]);
    expect(refused).to.deep.equal(
      failure('acme-inc has 1 member besides its owners; nothing was deleted (with --force, it is deleted with them)'),
    );
    expect(await t.auth.orgs.find('acme-inc')).to.not.equal(null);

    expect(await cli('delete-org', 'acme-inc', '--force')).to.deep.equal({
      code: 0,
      stdout: 'Deleted organization acme-inc (id 1), with 2 members\n',
      stderr: '',
    });
    expect(await cli('delete-org', 'globex-corp')).to.deep.equal({
      code: 0,
      stdout: 'Deleted organization globex-corp (id 2), with 1 member\n',
      stderr: '',
    });
    expect(await t.auth.orgs.list()).to.deep.equal([]);
    expect(await cli('list-orgs')).to.deep.equal({ code: 0, stdout: 'No organizations.\n', stderr: '' });
    expect(await cli('delete-org', 'acme-inc')).to.deep.equal(
      failure('Not found: no organization with slug "acme-inc"'),
    );
  });

  it('create-org is an operator tool: SERVICE_AUTH_ORG_CREATION=admins does not limit it', async () => {
    const created = await runCliInProcess(
      ['auth', 'create-org', '--name', 'Initech', '--owner', 'cy@example.com', '--database', database.url],
      { cwd: dir, env: { SERVICE_AUTH_ORG_CREATION: 'admins' } },
    );
    expect(created).to.include({ code: 0, stderr: '' });
    expect((await t.auth.orgs.members('initech')).map((m) => [m.email, m.roles])).to.deep.equal([
      ['cy@example.com', ['owner']],
    ]);
    await t.auth.orgs.delete('initech');
  });
});
