/**
 * CONTRACT-2 §14.2 from the command line: `auth delete-user` asks on a terminal, fails off one
 * without `--yes`, and deletes the user with everything of theirs, which a running application
 * on the same SQLite file stops accepting.
 */
import { expect } from 'chai';
import { createTestApp, PASSWORD, temporaryDatabase, type TestApp } from '../helpers/app.js';
import { runCli, runCliInTerminal, type CliResult, type TerminalResult } from './cli-process.js';
import { runCliInProcess } from './in-process.js';
import { login, loginResponse, meWithCookie, meWithToken, untilStatus } from './running-app.js';

const CONFIRM_PROMPT = /Type the email to confirm: /;
const ENTER = '\r';
const CTRL_C = '\u0003';

/** What a person sees: without readline's cursor moves and the terminal's carriage returns. */
const seen = (result: TerminalResult): { code: number | null; output: string } => ({
  code: result.code,
  output: result.output.replace(/\u001b\[[0-9;]*[A-Za-z]/g, '').replace(/\r/g, ''),
});

describe('CLI: delete-user', () => {
  let database: Awaited<ReturnType<typeof temporaryDatabase>>;
  let t: TestApp;
  const ada = { id: 0, cookie: '', token: '' };
  // In this process, but for the confirmation typed on a pipe (a real process's stdin).
  const cli = (args: string[], input?: string): Promise<CliResult> =>
    (input === 'ada@example.com\n' ? runCli : runCliInProcess)(
      ['auth', ...args, '--database', database.url],
      input === undefined ? {} : { input },
    );
  const inTerminal = (email: string, typed: string): Promise<TerminalResult> =>
    runCliInTerminal(
      ['auth', 'delete-user', email, '--database', database.url],
      [{ prompt: CONFIRM_PROMPT, type: typed }],
    );

  before(async () => {
    database = await temporaryDatabase();
    t = await createTestApp({ SERVICE_AUTH_DATABASE_URL: database.url, SERVICE_AUTH_RATE_LIMIT_ENABLED: false });
    ada.id = (await t.auth.users.create({ email: 'ada@example.com', password: PASSWORD, roles: ['editor'] })).id;
    ada.cookie = await login(t, 'ada@example.com');
    ada.token = (await t.auth.tokens.create('ada@example.com', { name: 'ci' })).token;
    // In use, so that the app holds them in memory when the CLI deletes them under it.
    await meWithCookie(t, ada.cookie).expect(200);
    await meWithToken(t, ada.token).expect(200);
    for (const email of ['bob@example.com', 'cy@example.com', 'dee@example.com'])
      await t.auth.users.create({ email, password: PASSWORD });
  });
  after(async () => {
    await t.auth.close();
    await database.remove();
  });

  it('delete-user off a terminal without --yes fails (exit 1), saying to pass --yes, and changes nothing', async () => {
    expect(await cli(['delete-user', 'ada@example.com'], 'ada@example.com\n')).to.deep.equal({
      code: 1,
      stdout: '',
      stderr:
        'Not deleted: standard input is not a terminal to confirm on; pass --yes to delete ada@example.com without asking\n',
    });
    expect(await t.auth.users.findByEmail('ada@example.com')).to.not.equal(null);
    await meWithCookie(t, ada.cookie).expect(200);
    await meWithToken(t, ada.token).expect(200);
  });

  it('delete-user --yes deletes the user with their session and token, which a running app refuses within a second', async () => {
    expect(await cli(['delete-user', 'ada@example.com', '--yes'])).to.deep.equal({
      code: 0,
      stdout: `Deleted user ada@example.com (id ${ada.id}; roles: editor), with 1 session and 1 API token\n`,
      stderr: '',
    });
    expect(await t.auth.users.findByEmail('ada@example.com')).to.equal(null);
    await Promise.all([
      untilStatus(() => meWithCookie(t, ada.cookie), 401),
      untilStatus(() => meWithToken(t, ada.token), 401),
    ]);
    expect(await t.auth.tokens.list()).to.deep.equal([]);
    // The role itself stays; only the user's link to it went.
    expect((await t.auth.roles.list()).map((role) => role.name)).to.deep.equal(['editor']);
  });

  it('delete-user --yes: the email can be created again, as a new user without the old credentials', async () => {
    const created = await cli(['create-user', '--email', 'ada@example.com', '--password-stdin'], `${PASSWORD}\n`);
    expect(created.code, created.stderr).to.equal(0);
    const again = (await t.auth.users.findByEmail('ada@example.com'))!;
    expect(again.id).to.not.equal(ada.id);
    expect([...again.roles]).to.deep.equal([]);
    await meWithToken(t, ada.token).expect(401);
    await loginResponse(t, 'ada@example.com').expect(200);
  });

  describe('on a terminal, without --yes', () => {
    let confirmed: TerminalResult;
    let mistyped: TerminalResult;
    let cancelled: TerminalResult;
    let ids: Record<string, number>;

    before(async () => {
      const users = await t.auth.users.list();
      ids = Object.fromEntries(users.map((user) => [user.email, user.id]));
      // Each process writes only after its answer, and the answers come at different times; a
      // busy SQLite file would say so (and fail the test) rather than lose a write.
      [confirmed, mistyped, cancelled] = await Promise.all([
        inTerminal('bob@example.com', ' BOB@example.com' + ENTER),
        inTerminal('cy@example.com', 'cy@example.org' + ENTER),
        inTerminal('dee@example.com', 'dee@' + CTRL_C),
      ]);
    });

    it('says what will be deleted, asks to type the email, and deletes once it is typed', async () => {
      expect(seen(confirmed)).to.deep.equal({
        code: 0,
        output:
          `bob@example.com (id ${ids['bob@example.com']}; no roles) has no sessions and no API tokens.\n` +
          'Delete bob@example.com and everything of theirs? Type the email to confirm:  BOB@example.com\n' +
          `Deleted user bob@example.com (id ${ids['bob@example.com']}; no roles)\n`,
      });
      expect(await t.auth.users.findByEmail('bob@example.com')).to.equal(null);
    });

    it('changes nothing when another email is typed (exit 1)', async () => {
      expect(seen(mistyped).code).to.equal(1);
      expect(seen(mistyped).output).to.match(
        /Type the email to confirm: cy@example\.org\nThe email typed is not cy@example\.com; nothing was changed\n$/,
      );
      expect(await t.auth.users.findByEmail('cy@example.com')).to.not.equal(null);
    });

    it('stops on Ctrl-C with status 130, changing nothing', async () => {
      expect(seen(cancelled).code).to.equal(130);
      expect(seen(cancelled).output).to.match(/Type the email to confirm: dee@\nCancelled; nothing was changed\n$/);
      expect(await t.auth.users.findByEmail('dee@example.com')).to.not.equal(null);
    });
  });
});
