/**
 * A command line that names no command is answered with the nearest command when one is near (a
 * typo, the `auth` group left out), on stderr with the usage status 2; `auth --version` answers as
 * `--version` does. In this process: the exit status as a shell sees it is help.test.ts's.
 */
import { expect } from 'chai';
import fc from 'fast-check';
import { distance } from 'fastest-levenshtein';
import { AUTH_GROUP_COMMANDS } from '../../cli/commands/auth-group.js';
import { nearestCommand } from '../../cli/commands/nearest-command.js';
import { packageVersion } from '../../cli/package-version.js';
import { runCliInProcess } from './in-process.js';

// The commands `auth <word>` is compared with (auth-group.ts).
const PATHS = AUTH_GROUP_COMMANDS.flatMap((command) => command.paths ?? []);
const NAMES = PATHS.map((path) => path.join(' '));

describe('CLI: an unknown command', () => {
  it('auth --version and auth -v print the version, status 0', async () => {
    for (const flag of ['--version', '-v']) {
      expect(await runCliInProcess(['auth', flag]), flag).to.deep.equal({
        code: 0,
        stdout: `${packageVersion()}\n`,
        stderr: '',
      });
    }
  });

  it('a mistyped command of the group is answered with the nearest one', async () => {
    expect(await runCliInProcess(['auth', 'creat-user', '--email', 'ada@example.com'])).to.deep.equal({
      code: 2,
      stdout: '',
      stderr:
        'Unknown command "auth creat-user"; did you mean "service-auth auth create-user"? See service-auth auth --help\n',
    });
    expect((await runCliInProcess(['auth', 'audit-verify'])).stderr).to.contain(
      'did you mean "service-auth auth audit verify"?',
    );
  });

  it('a command without its group, or with the group mistyped, is answered with the command meant', async () => {
    expect(await runCliInProcess(['list-users', '--json'])).to.deep.equal({
      code: 2,
      stdout: '',
      stderr: 'Unknown command "list-users"; did you mean "service-auth auth list-users"? See service-auth --help\n',
    });
    expect(await runCliInProcess(['auht', 'reset-password', 'ada@example.com'])).to.deep.equal({
      code: 2,
      stdout: '',
      stderr:
        'Unknown command "auht reset-password"; did you mean "service-auth auth reset-password"? See service-auth --help\n',
    });
  });

  it('a word near no command gets the list of commands instead of a guess', async () => {
    const inGroup = await runCliInProcess(['auth', 'frobnicate']);
    expect({ code: inGroup.code, stdout: inGroup.stdout }).to.deep.equal({ code: 2, stdout: '' });
    expect(inGroup.stderr).to.match(/^Unknown command "auth frobnicate"; the commands are create-user, list-users, /);
    const alone = await runCliInProcess(['frobnicate']);
    expect({ code: alone.code, stdout: alone.stdout }).to.deep.equal({ code: 2, stdout: '' });
    expect(alone.stderr).to.match(/^Unknown Syntax Error: Command not found; did you mean one of:\n/);
  });

  it('suggests, for any one-letter typo in the last word of a command of the group, the command meant (property)', () => {
    const typo = fc
      .record({
        path: fc.constantFrom(...PATHS),
        at: fc.nat(),
        letter: fc.constantFrom(...'abcdefghijklmnopqrstuvwxyz-'),
        edit: fc.constantFrom('delete', 'replace', 'insert'),
      })
      .map(({ path, at, letter, edit }) => {
        const last = path.at(-1)!;
        const i = at % (last.length + (edit === 'insert' ? 1 : 0));
        const typed = last.slice(0, i) + (edit === 'delete' ? '' : letter) + last.slice(edit === 'insert' ? i : i + 1);
        return { meant: path.join(' '), args: [...path.slice(0, -1), typed] };
      })
      // Not another command, nor an option (a word that starts with `-`).
      .filter(({ args }) => !NAMES.includes(args.join(' ')) && !args.at(-1)!.startsWith('-'));
    fc.assert(
      fc.property(typo, ({ meant, args }) => {
        const suggestion = nearestCommand(args, PATHS);
        expect(suggestion, args.join(' ')).to.not.equal(undefined);
        // The command meant, or another exactly as near (no command is one edit from another).
        expect(distance(suggestion!.name, args.join(' '))).to.be.at.most(distance(meant, args.join(' ')));
        expect(suggestion!.typed).to.equal(args.join(' '));
      }),
    );
  });
});
