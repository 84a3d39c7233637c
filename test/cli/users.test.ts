import { expect } from 'chai';
import { createTestApp, PASSWORD, temporaryDatabase, type TestApp } from '../helpers/app.js';
import { runBatch, runCli, type CliResult } from './cli-process.js';
import { runCliInProcess } from './in-process.js';

const NEW_PASSWORD = 'Another-Password-77!';
const PASSWORD_WARNING =
  'Warning: --password is visible to other users of this machine (process list, shell history); prefer --password-stdin or the prompt\n';

describe('CLI: create-user, list-users, reset-password', () => {
  let database: Awaited<ReturnType<typeof temporaryDatabase>>;
  let t: TestApp;
  const results: Record<string, CliResult> = {};
  // In this process; `inProcess: false` for the few that check what a real process shows.
  const cli = (args: string[], input?: string, inProcess = true): Promise<CliResult> =>
    (inProcess ? runCliInProcess : runCli)(
      ['auth', ...args, '--database', database.url],
      input === undefined ? {} : { input },
    );

  before(async () => {
    database = await temporaryDatabase();
    // Migrates the file before any CLI process opens it, and arranges and checks the data.
    t = await createTestApp({ SERVICE_AUTH_DATABASE_URL: database.url });
    await t.auth.users.create({ email: 'taken@example.com', password: PASSWORD });
    await t.auth.users.create({ email: 'resets@example.com', password: PASSWORD });
    await t.auth.roles.create('admin');

    const run =
      (args: string[], input?: string, inProcess = true) =>
      (): Promise<CliResult> =>
        cli(args, input, inProcess);
    Object.assign(
      results,
      await runBatch({
        writers: {
          created: run(
            [
              'create-user',
              '--email',
              ' Ada@Example.com ',
              '--password',
              PASSWORD,
              '--role',
              'analyst',
              '--role',
              'admin',
              '--admin',
            ],
            undefined,
            false,
          ),
          roleOnly: run(
            ['create-user', '--email', 'role-only@example.com', '--password-stdin', '--role', 'admin'],
            `${PASSWORD}\n`,
          ),
          reset: run(['reset-password', 'RESETS@example.com', '--password-stdin'], `${NEW_PASSWORD}\n`),
        },
        others: {
          emailTaken: run(['create-user', '--email', 'TAKEN@example.com', '--password-stdin'], `${PASSWORD}\n`),
          invalidEmail: run(['create-user', '--email', 'not-an-email', '--password-stdin'], `${PASSWORD}\n`),
          passwordRules: run(
            ['create-user', '--email', 'weak@example.com', '--password-stdin', '--role', 'newcomer'],
            'short\n',
          ),
          invalidRole: run(
            ['create-user', '--email', 'role@example.com', '--password-stdin', '--role', 'no spaces'],
            `${PASSWORD}\n`,
          ),
          missingEmail: run(['create-user', '--password-stdin'], `${PASSWORD}\n`, false),
          resetUnknown: run(['reset-password', 'nobody@example.com', '--password-stdin'], `${PASSWORD}\n`),
          resetWeak: run(['reset-password', 'taken@example.com', '--password', 'alllowercase']),
        },
      }),
    );
    // The listings, once every change is in.
    [results['table'], results['json']] = await Promise.all([
      cli(['list-users'], undefined, false),
      cli(['list-users', '--json']),
    ]);
  });
  after(async () => {
    await t.auth.close();
    await database.remove();
  });

  describe('create-user', () => {
    it('creates the user with its roles and admin flag, saying which roles it created', async () => {
      const ada = await t.auth.users.findByEmail('ada@example.com');
      expect(ada, results['created']!.stderr).to.not.equal(null);
      expect(results['created']).to.deep.equal({
        code: 0,
        stdout: `Created role "analyst"\nCreated user ada@example.com (id ${ada!.id}; admin; roles: admin, analyst)\n`,
        stderr: PASSWORD_WARNING,
      });
      expect(ada!.toJSON()).to.include({ email: 'ada@example.com', is_admin: true });
      expect(ada!.toJSON().roles).to.deep.equal(['admin', 'analyst']);
      expect(await t.auth.users.authenticate('ada@example.com', PASSWORD)).to.not.equal(null);
    });

    it('keeps --role admin and --admin independent', async () => {
      expect(results['roleOnly']!.code, results['roleOnly']!.stderr).to.equal(0);
      expect(results['roleOnly']!.stdout).to.match(/^Created user role-only@example\.com \(id \d+; roles: admin\)\n$/);
      const user = await t.auth.users.findByEmail('role-only@example.com');
      expect(user!.is_admin).to.equal(false);
      expect([...user!.roles]).to.deep.equal(['admin']);
    });

    describe('failures: non-zero, a message on stderr, nothing changed', () => {
      it('email taken', () => {
        expect(results['emailTaken']).to.deep.equal({
          code: 1,
          stdout: '',
          stderr: 'Email taken: a user with email taken@example.com already exists\n',
        });
      });

      it('invalid email', () => {
        expect(results['invalidEmail']).to.deep.equal({
          code: 1,
          stdout: '',
          stderr: 'Invalid email: "not-an-email" is not an email address (at most 254 characters)\n',
        });
      });

      it('every failed password rule, one per line', () => {
        expect(results['passwordRules']).to.deep.equal({
          code: 1,
          stdout: '',
          stderr: [
            'The password does not meet the rules:',
            '  - must be at least 12 characters long (min_length)',
            '  - must contain an uppercase letter (A-Z) (uppercase)',
            '  - must contain a digit (0-9) (digit)',
            '  - must contain a special character (anything but A-Z, a-z and 0-9) (special)',
            '',
          ].join('\n'),
        });
      });

      it('an invalid role name', () => {
        expect(results['invalidRole']).to.deep.equal({
          code: 1,
          stdout: '',
          stderr: 'Invalid role name: "no spaces" is not a role name (1 to 64 of A-Z a-z 0-9 _ . : -)\n',
        });
      });

      it('a missing --email is a usage error (status 2)', () => {
        expect(results['missingEmail']!.code).to.equal(2);
        expect(results['missingEmail']!.stdout).to.equal('');
        expect(results['missingEmail']!.stderr).to.contain('Usage Error: --email is required');
      });

      it('created no user and no role', async () => {
        for (const email of ['weak@example.com', 'role@example.com', 'not-an-email']) {
          expect(await t.auth.users.findByEmail(email), email).to.equal(null);
        }
        expect(await t.auth.users.authenticate('taken@example.com', PASSWORD)).to.not.equal(null);
        expect((await t.auth.roles.list()).map((role) => role.name)).to.deep.equal(['admin', 'analyst']);
      });
    });
  });

  describe('list-users', () => {
    it('prints an aligned table: ID, Email, Status, Admin, Roles, Created', async () => {
      const { code, stdout, stderr } = results['table']!;
      expect({ code, stderr }).to.deep.equal({ code: 0, stderr: '' });
      const users = await t.auth.users.list();
      const lines = stdout.trimEnd().split('\n');
      expect(lines).to.have.length(users.length + 1);
      expect(lines[0]).to.match(/^ID +Email +Status +Admin +Roles +Created$/);
      const ada = users.find((user) => user.email === 'ada@example.com')!;
      const created = ada.created_at.toISOString().replace(/\.\d{3}Z$/, 'Z');
      expect(lines.find((line) => line.includes('ada@example.com'))).to.match(
        new RegExp(`^${ada.id} +ada@example\\.com +active +yes +admin, analyst +${created}$`),
      );
      expect(lines.find((line) => line.includes('taken@example.com'))).to.match(/ active +no +- +\d{4}-/);
      // Aligned: every column starts where its header does.
      for (const header of ['Email', 'Status', 'Admin', 'Roles', 'Created']) {
        const column = lines[0]!.indexOf(header);
        for (const line of lines.slice(1)) expect(line[column - 1], `${header} in ${line}`).to.equal(' ');
        for (const line of lines.slice(1)) expect(line[column], `${header} in ${line}`).to.not.equal(' ');
      }
    });

    it('--json prints the users as the HTTP API returns them', async () => {
      const { code, stdout, stderr } = results['json']!;
      expect({ code, stderr }).to.deep.equal({ code: 0, stderr: '' });
      const expected = (await t.auth.users.list()).map((user) => user.toJSON());
      expect(JSON.parse(stdout)).to.deep.equal(expected);
      expect(expected.length).to.be.greaterThan(1);
    });
  });

  describe('reset-password', () => {
    it('sets the new password and says that sessions and tokens were ended', async () => {
      expect(results['reset']).to.deep.equal({
        code: 0,
        stdout: 'Reset the password of resets@example.com; their sessions and API tokens were ended\n',
        stderr: '',
      });
      expect(await t.auth.users.authenticate('resets@example.com', NEW_PASSWORD)).to.not.equal(null);
      expect(await t.auth.users.authenticate('resets@example.com', PASSWORD)).to.equal(null);
    });

    it('fails on an unknown email or a weak password, changing nothing', async () => {
      expect(results['resetUnknown']).to.deep.equal({
        code: 1,
        stdout: '',
        stderr: 'Unknown email: no user with email nobody@example.com\n',
      });
      const weak = results['resetWeak']!;
      expect(weak.code).to.equal(1);
      expect(weak.stdout).to.equal('');
      expect(weak.stderr).to.equal(
        PASSWORD_WARNING +
          [
            'The password does not meet the rules:',
            '  - must contain an uppercase letter (A-Z) (uppercase)',
            '  - must contain a digit (0-9) (digit)',
            '  - must contain a special character (anything but A-Z, a-z and 0-9) (special)',
            '',
          ].join('\n'),
      );
      expect(await t.auth.users.authenticate('taken@example.com', PASSWORD)).to.not.equal(null);
    });
  });
});
