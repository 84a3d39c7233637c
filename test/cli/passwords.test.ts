import { expect } from 'chai';
import { createTestApp, PASSWORD, temporaryDatabase, type TestApp } from '../helpers/app.js';
import { runCli, runCliInTerminal, type CliResult, type TerminalResult } from './cli-process.js';
import { runCliInProcess } from './in-process.js';

// Non-ASCII on purpose: the raw-mode prompt must decode what the terminal sends as UTF-8.
const TYPED = 'Typed-Pässwörd-42';
const ENTER = '\r';
const CTRL_C = '\u0003';
const PASSWORD_PROMPT = /Password for [^\n]+: $/;
const REPEAT_PROMPT = /Repeat the password: $/;

describe('CLI: where passwords come from', () => {
  let database: Awaited<ReturnType<typeof temporaryDatabase>>;
  let t: TestApp;
  const args = (...rest: string[]): string[] => ['auth', ...rest, '--database', database.url];

  before(async () => {
    database = await temporaryDatabase();
    t = await createTestApp({ SERVICE_AUTH_DATABASE_URL: database.url });
    await t.auth.users.create({ email: 'ada@example.com', password: PASSWORD });
  });
  after(async () => {
    await t.auth.close();
    await database.remove();
  });

  describe('on a terminal, with neither --password nor --password-stdin', () => {
    let created: TerminalResult;
    let differing: TerminalResult;
    let cancelled: TerminalResult;

    before(async () => {
      [created, differing, cancelled] = await Promise.all([
        runCliInTerminal(args('create-user', '--email', 'tty@example.com'), [
          { prompt: PASSWORD_PROMPT, type: TYPED + ENTER },
          { prompt: REPEAT_PROMPT, type: TYPED + ENTER },
        ]),
        runCliInTerminal(args('reset-password', 'ada@example.com'), [
          { prompt: PASSWORD_PROMPT, type: 'Brand-New-Password-1!' + ENTER },
          { prompt: REPEAT_PROMPT, type: 'Brand-New-Password-2!' + ENTER },
        ]),
        runCliInTerminal(args('create-user', '--email', 'cancelled@example.com'), [
          { prompt: PASSWORD_PROMPT, type: 'Half-typ' + CTRL_C },
        ]),
      ]);
    });

    it('prompts twice without echo and uses the password', async () => {
      expect(created).to.deep.equal({
        code: 0,
        output: `Password for tty@example.com: \nRepeat the password: \nCreated user tty@example.com (id 2; no roles)\n`,
      });
      expect(await t.auth.users.authenticate('tty@example.com', TYPED)).to.not.equal(null);
    });

    it('fails when the two entries differ, changing nothing', async () => {
      expect(differing.code).to.equal(1);
      expect(differing.output).to.equal(
        'Password for ada@example.com: \nRepeat the password: \nThe two passwords differ; nothing was changed\n',
      );
      expect(await t.auth.users.authenticate('ada@example.com', PASSWORD)).to.not.equal(null);
    });

    it('stops on Ctrl-C with status 130, changing nothing', async () => {
      expect(cancelled).to.deep.equal({
        code: 130,
        output: 'Password for cancelled@example.com: \nCancelled; nothing was changed\n',
      });
      expect(await t.auth.users.findByEmail('cancelled@example.com')).to.equal(null);
    });
  });

  describe('off a terminal', () => {
    const results: Record<string, CliResult> = {};

    before(async () => {
      [results['noSource'], results['both'], results['stdin'], results['emptyStdin']] = await Promise.all([
        runCli(args('create-user', '--email', 'pipe@example.com')),
        // The others in this process (its stdin is never a terminal either).
        runCliInProcess(
          args('create-user', '--email', 'both@example.com', '--password', PASSWORD, '--password-stdin'),
          { input: `${PASSWORD}\n` },
        ),
        // Only the first line counts; a Windows line end is not part of the password.
        runCliInProcess(args('create-user', '--email', 'stdin@example.com', '--password-stdin'), {
          input: `${TYPED}\r\nsecond line\n`,
        }),
        runCliInProcess(args('create-user', '--email', 'empty@example.com', '--password-stdin'), { input: '' }),
      ]);
    });

    it('fails without a password source, saying to use --password or --password-stdin', () => {
      const message =
        'No password given, and standard input is not a terminal to prompt on: use --password or --password-stdin\n';
      expect(results['noSource']).to.deep.equal({ code: 1, stdout: '', stderr: message });
    });

    it('refuses --password with --password-stdin (status 2)', () => {
      expect(results['both']!.code).to.equal(2);
      expect(results['both']!.stdout).to.equal('');
      expect(results['both']!.stderr).to.contain(
        'Usage Error: --password and --password-stdin cannot be used together',
      );
    });

    it('--password-stdin reads the first line of standard input', async () => {
      expect(results['stdin']!.code, results['stdin']!.stderr).to.equal(0);
      expect(results['stdin']!.stderr).to.equal('');
      expect(await t.auth.users.authenticate('stdin@example.com', TYPED)).to.not.equal(null);
    });

    it('--password-stdin fails when standard input has no line', () => {
      expect(results['emptyStdin']).to.deep.equal({
        code: 1,
        stdout: '',
        stderr: '--password-stdin: standard input ended before a line with the password\n',
      });
    });

    it('created nobody when it failed', async () => {
      for (const email of ['pipe@example.com', 'both@example.com', 'empty@example.com']) {
        expect(await t.auth.users.findByEmail(email)).to.equal(null);
      }
    });
  });
});
