import { expect } from 'chai';
import { rm, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { createTestApp, PASSWORD, temporaryDatabase, temporaryDirectory } from '../helpers/app.js';
import { createPostgresDatabase, describePostgres } from '../helpers/services.js';
import { runCli, type CliResult } from './cli-process.js';
import { runCliInProcess } from './in-process.js';

const MIGRATIONS = [
  'Migration20261121000000_initial',
  'Migration20261122000000_unique_token_hash',
  'Migration20261123000000_account_lifecycle',
  'Migration20261124000000_change_feed',
  'Migration20261125000000_audit_log',
  'Migration20261125100000_second_factor',
  'Migration20261126000000_organizations',
  'Migration20261127000000_identities',
  'Migration20261127100000_impersonation',
];
const APPLIED = MIGRATIONS.map((name) => `Applied ${name}\n`).join('');

/** The role names stored in a database, read through a ServiceAuth of our own. */
async function roleNames(url: string): Promise<string[]> {
  const { auth } = await createTestApp({ SERVICE_AUTH_DATABASE_URL: url });
  try {
    return (await auth.roles.list()).map((role) => role.name);
  } finally {
    await auth.close();
  }
}

describe('CLI: which database, migrations, failures to open it', () => {
  const databases: Awaited<ReturnType<typeof temporaryDatabase>>[] = [];
  const fresh = async (): Promise<string> => {
    const database = await temporaryDatabase();
    databases.push(database);
    return database.url;
  };
  let workDir: string;
  let envUrl: string;
  let flagUrl: string;
  let manualUrl: string;
  let appUrl: string;
  const results: Record<string, CliResult> = {};

  before(async () => {
    workDir = await temporaryDirectory();
    [envUrl, flagUrl, manualUrl, appUrl] = await Promise.all([fresh(), fresh(), fresh(), fresh()]);
    const manual = { SERVICE_AUTH_AUTO_MIGRATE: 'false' };

    // Each chain works on its own database, so the chains run side by side.
    await Promise.all([
      (async () => {
        results['defaultInCwd'] = await runCli(['auth', 'list-users'], { cwd: workDir });
        // A production host: the CLI sends no mail, so it needs no SERVICE_AUTH_PUBLIC_URL.
        results['production'] = await runCliInProcess(['auth', 'list-users'], {
          cwd: workDir,
          env: { NODE_ENV: 'production', SERVICE_AUTH_PUBLIC_URL: undefined },
        });
      })(),
      (async () => {
        results['fromEnv'] = await runCliInProcess(['auth', 'create-role', 'from-env'], {
          env: { SERVICE_AUTH_DATABASE_URL: envUrl },
        });
        results['flagOverEnv'] = await runCliInProcess(['auth', 'create-role', 'from-flag', '--database', flagUrl], {
          env: { SERVICE_AUTH_DATABASE_URL: envUrl },
        });
      })(),
      (async () => {
        const cli = (...args: string[]): Promise<CliResult> =>
          runCliInProcess(['auth', ...args, '--database', manualUrl], { env: manual });
        // The refusal's exit status as a process gives it; the rest in this process.
        results['beforeMigrate'] = await runCli(['auth', 'list-users', '--database', manualUrl], { env: manual });
        results['migrate'] = await cli('migrate');
        results['migrateAgain'] = await cli('migrate');
        results['afterMigrate'] = await cli('list-users');
      })(),
      (async () => {
        // Auto-migration left on: the command keeps the application from migrating on its own.
        results['migrateWithApp'] = await runCli([
          'auth',
          'migrate',
          '--app',
          'test/cli/fixtures/app.js',
          '--database',
          appUrl,
        ]);
      })(),
      (async () => {
        const unreachable = 'postgresql://operator:s3cret-pw@127.0.0.1:1/auth';
        [results['unreachable'], results['migrateUnreachable'], results['invalidUrl']] = await Promise.all([
          runCli(['auth', 'list-users', '--database', unreachable]),
          runCliInProcess(['auth', 'migrate', '--database', unreachable]),
          runCliInProcess(['auth', 'list-users', '--database', 'mysql://operator:s3cret-pw@localhost/auth']),
        ]);
      })(),
    ]);
  });
  after(async () => {
    await Promise.all(databases.map((database) => database.remove()));
    await rm(workDir, { recursive: true, force: true });
  });

  it('defaults to sqlite:service-auth.sqlite in the working directory, migrated on first use', async () => {
    expect(results['defaultInCwd']).to.deep.equal({ code: 0, stdout: 'No users.\n', stderr: '' });
    expect((await stat(join(workDir, 'service-auth.sqlite'))).isFile()).to.equal(true);
  });

  it('runs on a production host (NODE_ENV=production) without a public URL', () => {
    expect(results['production']).to.deep.equal({ code: 0, stdout: 'No users.\n', stderr: '' });
  });

  it('takes SERVICE_AUTH_DATABASE_URL, and --database over it', async () => {
    expect(results['fromEnv']).to.deep.include({ code: 0, stdout: 'Created role "from-env"\n' });
    expect(results['flagOverEnv']).to.deep.include({ code: 0, stdout: 'Created role "from-flag"\n' });
    expect(await roleNames(envUrl)).to.deep.equal(['from-env']);
    expect(await roleNames(flagUrl)).to.deep.equal(['from-flag']);
  });

  describe('migrate', () => {
    it('with SERVICE_AUTH_AUTO_MIGRATE=false, a fresh database is not migrated, and the failure says to migrate', () => {
      expect(results['beforeMigrate']).to.deep.equal({
        code: 1,
        stdout: '',
        stderr:
          'The database has no service-auth tables yet (SERVICE_AUTH_AUTO_MIGRATE is false): run the `auth migrate` command first\n',
      });
    });

    it('applies the pending migrations and says which', () => {
      expect(results['migrate']).to.deep.equal({
        code: 0,
        stdout: `${APPLIED}${manualUrl} is up to date\n`,
        stderr: '',
      });
      expect(results['afterMigrate']).to.deep.equal({ code: 0, stdout: 'No users.\n', stderr: '' });
    });

    it('run again, finds nothing pending', () => {
      expect(results['migrateAgain']).to.deep.equal({
        code: 0,
        stdout: `Nothing to migrate: ${manualUrl} is up to date\n`,
        stderr: '',
      });
    });

    it("with --app, migrates the application's database and says what it applied", () => {
      expect(results['migrateWithApp']).to.deep.equal({
        code: 0,
        stdout: `${APPLIED}${appUrl} is up to date\n`,
        stderr: '',
      });
    });
  });

  it('an unreachable database fails with its URL, password hidden, and no stack trace', () => {
    for (const name of ['unreachable', 'migrateUnreachable']) {
      const result = results[name]!;
      expect(result.code, name).to.equal(1);
      expect(result.stdout, name).to.equal('');
      expect(result.stderr, name).to.match(
        /^Database unavailable: cannot use the database postgresql:\/\/operator:\*\*\*@127\.0\.0\.1:1\/auth: .+\n$/,
      );
      expect(result.stderr, name).to.not.contain('s3cret-pw');
    }
  });

  it('an invalid --database names the option and the accepted forms', () => {
    expect(results['invalidUrl']).to.deep.equal({
      code: 1,
      stdout: '',
      stderr:
        'Invalid --database "mysql://operator:***@localhost/auth": expected sqlite:<path>, sqlite::memory: or postgresql://user@host:port/database\n',
    });
  });
});

describePostgres('CLI', () => {
  let database: Awaited<ReturnType<typeof createPostgresDatabase>>;

  before(async () => {
    database = await createPostgresDatabase();
  });
  after(async () => {
    await database?.drop();
  });

  it('creates and lists users in a PostgreSQL database, migrating it first', async () => {
    const created = await runCli(
      [
        'auth',
        'create-user',
        '--email',
        'pg@example.com',
        '--password-stdin',
        '--role',
        'analyst',
        '--database',
        database.url,
      ],
      {
        input: `${PASSWORD}\n`,
      },
    );
    expect(created).to.deep.equal({
      code: 0,
      stdout: 'Created role "analyst"\nCreated user pg@example.com (id 1; roles: analyst)\n',
      stderr: '',
    });

    const listed = await runCliInProcess(['auth', 'list-users', '--json', '--database', database.url]);
    const { auth } = await createTestApp({ SERVICE_AUTH_DATABASE_URL: database.url });
    try {
      const users = await auth.users.list();
      expect(users.map((user) => user.email)).to.deep.equal(['pg@example.com']);
      expect(await auth.users.authenticate('pg@example.com', PASSWORD)).to.not.equal(null);
      expect(listed.code, listed.stderr).to.equal(0);
      expect(JSON.parse(listed.stdout)).to.deep.equal(users.map((user) => user.toJSON()));
    } finally {
      await auth.close();
    }
  });
});
