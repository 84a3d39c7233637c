import { expect } from 'chai';
import { createTestApp, PASSWORD, temporaryDatabase, type TestApp } from '../helpers/app.js';
import { runBatch, runCli, type CliResult } from './cli-process.js';
import { runCliInProcess } from './in-process.js';

describe('CLI: create-role, list-roles, add-role, remove-role', () => {
  let database: Awaited<ReturnType<typeof temporaryDatabase>>;
  let t: TestApp;
  const results: Record<string, CliResult> = {};
  // In this process; the table in a real one.
  const cli = (...args: string[]): Promise<CliResult> =>
    (args.length === 1 && args[0] === 'list-roles' ? runCli : runCliInProcess)([
      'auth',
      ...args,
      '--database',
      database.url,
    ]);
  const rolesOf = async (email: string): Promise<string[]> => [...(await t.auth.users.findByEmail(email))!.roles];
  const roleNames = async (): Promise<string[]> => (await t.auth.roles.list()).map((role) => role.name);

  before(async () => {
    database = await temporaryDatabase();
    t = await createTestApp({ SERVICE_AUTH_DATABASE_URL: database.url });
    await t.auth.users.create({ email: 'ada@example.com', password: PASSWORD });
    await t.auth.users.create({ email: 'bob@example.com', password: PASSWORD, roles: ['auditor'] });
    await t.auth.users.create({ email: 'cy@example.com', password: PASSWORD, roles: ['auditor', 'viewer'] });

    const run =
      (...args: string[]) =>
      (): Promise<CliResult> =>
        cli(...args);
    Object.assign(
      results,
      await runBatch({
        writers: {
          createRole: run('create-role', 'editor'),
          addNewRole: run('add-role', 'ada@example.com', 'analyst'),
          // viewer is in the database (create-user --role), though no definition (./policies) names it.
          addExistingRole: run('add-role', 'BOB@example.com', 'viewer'),
          remove: run('remove-role', 'cy@example.com', 'auditor'),
        },
        others: {
          createExisting: run('create-role', 'viewer'),
          createInvalid: run('create-role', 'bad name'),
          addHeld: run('add-role', 'cy@example.com', 'viewer'),
          addUnknownEmail: run('add-role', 'nobody@example.com', 'viewer'),
          addInvalidRole: run('add-role', 'ada@example.com', 'bad:role!'),
          addUndefined: run('add-role', 'ada@example.com', 'analist'),
          removeNotHeld: run('remove-role', 'ada@example.com', 'auditor'),
          removeUnknownEmail: run('remove-role', 'nobody@example.com', 'auditor'),
        },
      }),
    );
    [results['table'], results['json']] = await Promise.all([cli('list-roles'), cli('list-roles', '--json')]);
  });
  after(async () => {
    await t.auth.close();
    await database.remove();
  });

  describe('create-role', () => {
    it('creates a role', async () => {
      expect(results['createRole']).to.deep.equal({ code: 0, stdout: 'Created role "editor"\n', stderr: '' });
      expect(await roleNames()).to.include('editor');
    });

    it('leaves an existing role as it is, and succeeds', () => {
      expect(results['createExisting']).to.deep.equal({
        code: 0,
        stdout: 'Role "viewer" already exists; nothing changed\n',
        stderr: '',
      });
    });

    it('refuses an invalid role name', async () => {
      expect(results['createInvalid']).to.deep.equal({
        code: 1,
        stdout: '',
        stderr: 'Invalid role name: "bad name" is not a role name (1 to 64 of A-Z a-z 0-9 _ . : -)\n',
      });
      expect(await roleNames()).to.not.include('bad name');
    });
  });

  describe('list-roles', () => {
    it('prints a table: Name, Created', async () => {
      const roles = await t.auth.roles.list();
      const width = Math.max(...roles.map((role) => role.name.length));
      expect(results['table']).to.deep.equal({
        code: 0,
        stdout: [
          `${'Name'.padEnd(width)}  Created`,
          ...roles.map((role) => `${role.name.padEnd(width)}  ${role.created_at.replace(/\.\d{3}Z$/, 'Z')}`),
          '',
        ].join('\n'),
        stderr: '',
      });
    });

    it('--json prints the roles as objects', async () => {
      expect(results['json']!.code, results['json']!.stderr).to.equal(0);
      expect(JSON.parse(results['json']!.stdout)).to.deep.equal(await t.auth.roles.list());
      expect(await roleNames()).to.deep.equal(['analyst', 'auditor', 'editor', 'viewer']);
    });
  });

  describe('add-role', () => {
    it('creates a missing role, says so, and gives it', async () => {
      expect(results['addNewRole']).to.deep.equal({
        code: 0,
        stdout: 'Created role "analyst"\nGave the role "analyst" to ada@example.com (id 1; roles: analyst)\n',
        stderr: '',
      });
      expect(await rolesOf('ada@example.com')).to.deep.equal(['analyst']);
    });

    it('gives a role that exists though no definition names it, saying on stderr that it grants nothing yet', async () => {
      expect(results['addExistingRole']).to.deep.equal({
        code: 0,
        stdout: 'Gave the role "viewer" to bob@example.com (id 2; roles: auditor, viewer)\n',
        stderr:
          'No definition gives the role "viewer" rules yet: it grants nothing until one does (auth.defineRole, or ./policies)\n',
      });
      expect(await rolesOf('bob@example.com')).to.deep.equal(['auditor', 'viewer']);
    });

    it('succeeds without change when the user already has the role', () => {
      expect(results['addHeld']).to.deep.equal({
        code: 0,
        stdout: 'cy@example.com already has the role "viewer"; nothing changed\n',
        stderr: '',
      });
    });

    it('fails on an unknown email or an invalid role name, changing nothing', async () => {
      expect(results['addUnknownEmail']).to.deep.equal({
        code: 1,
        stdout: '',
        stderr: 'Unknown email: no user with email nobody@example.com\n',
      });
      expect(results['addInvalidRole']).to.deep.equal({
        code: 1,
        stdout: '',
        stderr: 'Invalid role name: "bad:role!" is not a role name (1 to 64 of A-Z a-z 0-9 _ . : -)\n',
      });
      expect(await roleNames()).to.not.include('bad:role!');
    });

    it('asks for --force for a role that neither a definition (./policies) names nor was created, naming the closest, changing nothing', async () => {
      expect(results['addUndefined']).to.include({ code: 1, stdout: '' });
      expect(results['addUndefined']!.stderr).to.match(
        /^No role is named "analist": no definition names it and it was never created \(the defined roles are .*; did you mean "analyst"\?\)\. Create it with create-role, or give it anyway with --force\n$/,
      );
      expect(await roleNames()).to.not.include('analist');
    });
  });

  describe('remove-role', () => {
    it('takes the role away; the role stays, for other users', async () => {
      expect(results['remove']).to.deep.equal({
        code: 0,
        stdout: 'Took the role "auditor" from cy@example.com (id 3; roles: viewer)\n',
        stderr: '',
      });
      expect(await rolesOf('cy@example.com')).to.deep.equal(['viewer']);
      expect(await roleNames()).to.include('auditor');
    });

    it('fails on a role the user does not have, or an unknown email', async () => {
      expect(results['removeNotHeld']).to.deep.equal({
        code: 1,
        stdout: '',
        stderr: 'Not found: ada@example.com does not have the role "auditor"\n',
      });
      expect(results['removeUnknownEmail']).to.deep.equal({
        code: 1,
        stdout: '',
        stderr: 'Unknown email: no user with email nobody@example.com\n',
      });
      expect(await rolesOf('ada@example.com')).to.deep.equal(['analyst']);
    });
  });
});
