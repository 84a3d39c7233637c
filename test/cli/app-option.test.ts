import { expect } from 'chai';
import { readFile, rm, writeFile } from 'node:fs/promises';
import { createServer, type Server } from 'node:net';
import { join } from 'node:path';
import { createTestApp, PASSWORD, temporaryDatabase, temporaryDirectory, type TestApp } from '../helpers/app.js';
import { runBatch, runCli, type CliOptions, type CliResult } from './cli-process.js';

// The fixture applications' rules are at least 20 characters and no character classes: the first
// password passes them but not the defaults, the second passes the defaults but not them.
const APP_PASSWORD = 'correct horse battery staple';
const DEFAULT_VALID_SHORT = 'Short-Pass-1!';
const FIXTURES = 'test/cli/fixtures';

describe('CLI: --app loads the application, whose configuration and event handlers apply', () => {
  let database: Awaited<ReturnType<typeof temporaryDatabase>>;
  let traceDir: string;
  let trace: string;
  let withoutTsx: string;
  let t: TestApp;
  // A server holding the port the listening fixture asks for, as the application's own would.
  let held: Server;
  const results: Record<string, CliResult> = {};

  before(async function () {
    // Ten CLI processes, eight of them at once, two under tsx: about 30 s of CPU on two cores, so
    // more than mocha's 60 s for one test whenever the machine is busy with other work (seen at a
    // load average of 15, twice). The hook's own bound is sized for its work.
    this.timeout(180_000);
    database = await temporaryDatabase();
    traceDir = await temporaryDirectory();
    trace = join(traceDir, 'events.log');
    // A TypeScript application in a folder with no tsx to be found from it (the temporary
    // directory, outside this checkout).
    withoutTsx = join(traceDir, 'app.ts');
    await writeFile(withoutTsx, "export default 'never loaded';\n");
    t = await createTestApp({ SERVICE_AUTH_DATABASE_URL: database.url });
    for (const email of ['ada@example.com', 'bob@example.com', 'cy@example.com']) {
      await t.auth.users.create({ email, password: PASSWORD });
    }

    held = createServer();
    await new Promise<void>((resolve) => held.listen(0, '127.0.0.1', resolve));
    const heldPort = String((held.address() as { port: number }).port);

    const env = { CLI_FIXTURE_TRACE: trace };
    // The built CLI with `--app <module> --database <url>`, from the package root.
    const withApp = (module: string, args: string[], options: CliOptions = {}): Promise<CliResult> =>
      runCli(['auth', ...args, '--app', `${FIXTURES}/${module}`, '--database', database.url], { env, ...options });
    Object.assign(
      results,
      await runBatch({
        writers: {
          reset: () =>
            withApp('app.js', ['reset-password', 'ada@example.com', '--password-stdin'], {
              input: `${APP_PASSWORD}\n`,
            }),
          // The CLI from its sources under tsx loads a TypeScript module; the database comes from
          // the environment this time.
          underTsx: () =>
            runCli(['auth', 'reset-password', 'cy@example.com', '--password-stdin', '--app', `${FIXTURES}/app.ts`], {
              runner: 'tsx',
              env: { ...env, SERVICE_AUTH_DATABASE_URL: database.url },
              input: `${APP_PASSWORD}\n`,
            }),
        },
        others: {
          tooShort: () =>
            withApp('app.js', ['reset-password', 'bob@example.com', '--password-stdin'], {
              input: `${DEFAULT_VALID_SHORT}\n`,
            }),
          withoutApp: () => withApp('without-app.js', ['list-users']),
          listening: () => withApp('listening-app.js', ['list-users'], { env: { ...env, CLI_FIXTURE_PORT: heldPort } }),
          withoutServiceAuth: () => withApp('without-service-auth.js', ['list-users']),
          missing: () => withApp('missing.js', ['list-users']),
          // The built CLI loads a TypeScript module with the tsx installed for it (this checkout's).
          typeScriptWithBuiltCli: () => withApp('built-app.ts', ['list-users']),
          typeScriptWithoutTsx: () => runCli(['auth', 'list-users', '--app', withoutTsx, '--database', database.url]),
          // The demo's own policy tests, as README's "The demo" runs them; its database in memory.
          demoPolicyTests: () =>
            runCli(['auth', 'test-policies', '--app', 'demo/app.ts'], {
              env: { SERVICE_AUTH_DATABASE_URL: 'sqlite::memory:' },
            }),
        },
      }),
    );
  });
  after(async () => {
    held.close();
    await t.auth.close();
    await database.remove();
    await rm(traceDir, { recursive: true, force: true });
  });

  it("applies the application's password rules and fires its password_reset_completed handlers", async () => {
    expect(results['reset']).to.deep.equal({
      code: 0,
      stdout: 'Reset the password of ada@example.com; their sessions and API tokens were ended\n',
      stderr: '',
    });
    expect(await t.auth.users.authenticate('ada@example.com', APP_PASSWORD)).to.not.equal(null);
    expect(await traceLines()).to.include('password_reset_completed ada@example.com');
  });

  it("refuses a password the application's rules reject, though the defaults accept it", async () => {
    expect(results['tooShort']).to.deep.equal({
      code: 1,
      stdout: '',
      stderr: 'The password does not meet the rules:\n  - must be at least 20 characters long (min_length)\n',
    });
    expect(await t.auth.users.authenticate('bob@example.com', PASSWORD)).to.not.equal(null);
    expect(await traceLines()).to.not.include('password_reset_completed bob@example.com');
  });

  it('loads a TypeScript module (default export) when the CLI runs under tsx', async () => {
    expect(results['underTsx']!.stderr).to.equal('');
    expect(results['underTsx']!.code).to.equal(0);
    expect(await t.auth.users.authenticate('cy@example.com', APP_PASSWORD)).to.not.equal(null);
    expect((await traceLines()).sort()).to.deep.equal([
      'password_reset_completed ada@example.com',
      'password_reset_completed cy@example.com',
    ]);
  });

  it('loads a TypeScript module with the built CLI through the tsx installed for the application', () => {
    expect(results['typeScriptWithBuiltCli']!.stderr).to.equal('');
    expect(results['typeScriptWithBuiltCli']!.code).to.equal(0);
    for (const email of ['ada@example.com', 'bob@example.com', 'cy@example.com'])
      expect(results['typeScriptWithBuiltCli']!.stdout).to.contain(email);
  });

  it("runs the demo's policy tests (demo.json, 25, and projects.json, 124) with --app demo/app.ts", () => {
    expect(results['demoPolicyTests']).to.deep.equal({ code: 0, stdout: '149 passed, 0 failed\n', stderr: '' });
  });

  it('keeps an application that listens and logs when it loads from listening and from stdout: its lines on stderr, the port it asks for already held', () => {
    const { code, stdout, stderr } = results['listening']!;
    expect(code, stderr).to.equal(0);
    // The table's heading and the three users' rows, and no line of the application's.
    expect(
      stdout
        .split('\n')
        .filter(Boolean)
        .map((line) => line.split(' ')[0]),
    ).to.deep.equal(['ID', '1', '2', '3']);
    for (const email of ['ada@example.com', 'bob@example.com', 'cy@example.com']) expect(stdout).to.contain(email);
    // Its callback ran (on a port of our choosing, closed at once).
    expect(stderr).to.match(
      /^the application loads\nand writes to stdout\n\{"level":30,"msg":"and logs"\}\nListening on port \d+\n$/,
    );
  });

  it('says clearly when the module has no Express application, no ServiceAuth, or cannot be loaded', () => {
    expect(results['withoutApp']).to.deep.equal({
      code: 1,
      stdout: '',
      stderr: `${FIXTURES}/without-app.js exports no Express application: export it as the module's default export or as \`app\`\n`,
    });
    expect(results['withoutServiceAuth']!.code).to.equal(1);
    expect(results['withoutServiceAuth']!.stderr).to.match(
      /^The application in test\/cli\/fixtures\/without-service-auth\.js has no ServiceAuth: construct `new ServiceAuth\(app\)` when the module loads\n$/,
    );
    expect(results['missing']!.code).to.equal(1);
    expect(results['missing']!.stderr).to.match(
      /^Cannot load the application module test\/cli\/fixtures\/missing\.js: Cannot find module /,
    );
    // Node 22.18 and later strip the types of a .ts module themselves: it loads without tsx (and this one has no app).
    const stripsTypes = Boolean((process.features as { typescript?: string | false }).typescript);
    expect(results['typeScriptWithoutTsx']).to.deep.equal({
      code: 1,
      stdout: '',
      stderr: stripsTypes
        ? `${withoutTsx} exports no Express application: export it as the module's default export or as \`app\`\n`
        : `Cannot load the application module ${withoutTsx}: a TypeScript module needs tsx, which is not installed for it (looked from ${traceDir}): npm install --save-dev tsx\n`,
    });
    for (const name of ['withoutApp', 'withoutServiceAuth', 'missing', 'typeScriptWithoutTsx']) {
      expect(results[name]!.stderr, name).to.not.match(/\n\s+at /); // no stack trace
    }
  });

  async function traceLines(): Promise<string[]> {
    return (await readFile(trace, 'utf8').catch(() => '')).split('\n').filter(Boolean);
  }
});
