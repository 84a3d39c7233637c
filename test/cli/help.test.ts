import { expect } from 'chai';
import { Cli } from 'clipanion';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { authCommands } from '../../cli/commands/index.js';
import { ROOT } from '../helpers/processes.js';
import { runCli, type CliResult } from './cli-process.js';
import { runCliInProcess } from './in-process.js';

const COMMANDS = {
  'create-user': 'Create a user',
  'list-users': 'List the users',
  'reset-password': "Set a user's password",
  'reset-mfa': "Remove a user's app, recovery codes and passkeys",
  'disable-user': 'Disable a user',
  'enable-user': 'Enable a disabled user',
  'confirm-email': "Confirm a user's email address by hand",
  'delete-user': 'Delete a user and everything of theirs',
  'create-role': 'Create a role',
  'list-roles': 'List the roles',
  'add-role': 'Give a user a role',
  'remove-role': 'Take a role from a user',
  'create-org': 'Create an organization',
  'list-orgs': 'List the organizations',
  'list-members': 'List the members of an organization',
  'add-member': 'Make a user a member of an organization',
  'set-member-roles': "Change a member's organization roles",
  'remove-member': 'Remove a member from an organization',
  'delete-org': 'Delete an organization',
  'create-token': 'Create a token for a user',
  'list-tokens': 'List the tokens, without secrets',
  'revoke-token': 'Revoke a token',
  'import-legacy-token': 'Import a legacy token by its SHA-256',
  audit: 'Show the audit log, newest first',
  'audit verify': "Check the audit log's hash chain",
  'audit prune': 'Remove the audit records older than the retention now',
  migrate: 'Apply pending migrations',
};

describe('CLI: help, version and usage errors', () => {
  const results: Record<string, CliResult> = {};

  before(async () => {
    const runs: Record<string, string[]> = {
      help: ['--help'],
      groupHelp: ['auth', '--help'],
      group: ['auth'],
      commandHelp: ['auth', 'create-user', '--help'],
      version: ['--version'],
      unknownCommand: ['auth', 'create-usr', '--email', 'ada@example.com'],
      unknownOption: ['auth', 'list-users', '--jsn'],
      exportedClasses: [
        '--input-type=module',
        '--eval',
        "const cli = await import('service-auth/cli'); console.log(Object.keys(cli).sort().join(' '))",
      ],
    };
    // These in this process; the others as an operator runs them.
    const inProcess = new Set(['group', 'commandHelp', 'unknownCommand']);
    await Promise.all(
      Object.entries(runs).map(async ([name, args]) => {
        // The last one is plain node, importing the package's `./cli` export by name.
        if (name === 'exportedClasses') results[name] = await runCli(args, { runner: 'node' });
        else results[name] = await (inProcess.has(name) ? runCliInProcess : runCli)(args);
      }),
    );
  });

  it('--help lists every command with its description', () => {
    const { code, stdout, stderr } = results['help']!;
    expect({ code, stderr }).to.deep.equal({ code: 0, stderr: '' });
    for (const [verb, description] of Object.entries(COMMANDS)) {
      expect(stdout).to.match(new RegExp(`service-auth auth ${verb}\\b.*\\n +${description}\\n`));
    }
  });

  it('auth --help, and auth alone, describe the group with its commands and examples', () => {
    const { code, stdout, stderr } = results['groupHelp']!;
    expect({ code, stderr }).to.deep.equal({ code: 0, stderr: '' });
    expect(stdout).to.contain("Manage service-auth's users, roles, tokens and database");
    for (const [verb, description] of Object.entries(COMMANDS))
      expect(stdout).to.contain(`- \`auth ${verb}\`: ${description}`);
    expect(stdout).to.contain('\nExamples\n');
    expect(stdout).to.contain('$ service-auth auth create-user --email admin@example.com --role admin --admin');
    expect(results['group']).to.deep.equal(results['groupHelp']);
  });

  it('a command with --help shows its description, options and examples', () => {
    const { code, stdout, stderr } = results['commandHelp']!;
    expect({ code, stderr }).to.deep.equal({ code: 0, stderr: '' });
    expect(stdout.split('\n')[0]).to.equal('Create a user');
    expect(stdout).to.contain('--password-stdin    Read the password from the first line of standard input');
    expect(stdout).to.contain('\nExamples\n');
    expect(stdout).to.contain('$ service-auth auth create-user --email admin@example.com --role admin --admin');
  });

  it('--version prints the package version', async () => {
    const { version } = JSON.parse(await readFile(join(ROOT, 'package.json'), 'utf8')) as { version: string };
    expect(results['version']).to.deep.equal({ code: 0, stdout: `${version}\n`, stderr: '' });
  });

  it('an unknown command or option is a usage error on stderr, status 2 (more in unknown-command.test.ts)', () => {
    expect(results['unknownCommand']).to.deep.equal({
      code: 2,
      stdout: '',
      stderr:
        'Unknown command "auth create-usr"; did you mean "service-auth auth create-user"? See service-auth auth --help\n',
    });
    const { code, stdout, stderr } = results['unknownOption']!;
    expect({ code, stdout }).to.deep.equal({ code: 2, stdout: '' });
    expect(stderr).to.match(
      /^Unknown Syntax Error: Unsupported option name \("--jsn"\)\.\n\n\$ service-auth auth list-users /,
    );
  });

  it("the package exports the command classes as 'service-auth/cli'", () => {
    expect(results['exportedClasses']).to.deep.equal({
      code: 0,
      stdout:
        'AddMemberCommand AddRoleCommand AuditCommand AuditPruneCommand AuditVerifyCommand AuthGroupCommand CheckCommand ConfirmEmailCommand CreateOrgCommand CreateRoleCommand CreateTokenCommand CreateUserCommand DeleteOrgCommand DeleteRoleCommand ' +
        'DeleteUserCommand DisableUserCommand EnableUserCommand ImportLegacyTokenCommand ' +
        'ListMembersCommand ListOrgsCommand ListRolesCommand ListTokensCommand ListUsersCommand MigrateCommand PolicyDiffCommand PolicyLintCommand RemoveMemberCommand RemoveRoleCommand ResetMfaCommand ResetPasswordCommand ' +
        'RevokeTokenCommand RlsApplyCommand ServiceAuthCommand SetMemberRolesCommand TestPoliciesCommand authCommands\n',
      stderr: '',
    });
  });

  describe("registered in an application's own clipanion CLI", () => {
    const cli = new Cli({ binaryName: 'my-app', enableColors: false });
    for (const command of authCommands) cli.register(command);

    for (const [verb, description] of Object.entries(COMMANDS)) {
      it(`auth ${verb} has a description and examples under the application's name`, () => {
        const command = authCommands.find((candidate) => candidate.paths?.[0]?.slice(1).join(' ') === verb)!;
        const help = cli.usage(command, { detailed: true });
        expect(help.split('\n')[0]).to.equal(description);
        expect(help).to.contain(`$ my-app auth ${verb}`);
        expect(help).to.match(/\nExamples\n\n.+\n {2}\$ my-app auth /);
      });
    }
  });
});
