import { Command, Option, type CommandClass } from 'clipanion';
import { EXIT_USAGE } from './failures.js';
import { AddMemberCommand } from './add-member.js';
import { AddRoleCommand } from './add-role.js';
import { AuditCommand } from './audit.js';
import { AuditPruneCommand } from './audit-prune.js';
import { AuditVerifyCommand } from './audit-verify.js';
import { CheckCommand } from './check.js';
import { ConfirmEmailCommand } from './confirm-email.js';
import { CreateOrgCommand } from './create-org.js';
import { CreateRoleCommand } from './create-role.js';
import { CreateTokenCommand } from './create-token.js';
import { CreateUserCommand } from './create-user.js';
import { DeleteOrgCommand } from './delete-org.js';
import { DeleteRoleCommand } from './delete-role.js';
import { DeleteUserCommand } from './delete-user.js';
import { DisableUserCommand } from './disable-user.js';
import { EnableUserCommand } from './enable-user.js';
import { ImportLegacyTokenCommand } from './import-legacy-token.js';
import { ListMembersCommand } from './list-members.js';
import { ListOrgsCommand } from './list-orgs.js';
import { ListRolesCommand } from './list-roles.js';
import { ListTokensCommand } from './list-tokens.js';
import { ListUsersCommand } from './list-users.js';
import { MigrateCommand } from './migrate.js';
import { RlsApplyCommand } from './rls-apply.js';
import { PolicyDiffCommand } from './policy-diff.js';
import { PolicyLintCommand } from './policy-lint.js';
import { RemoveMemberCommand } from './remove-member.js';
import { RemoveRoleCommand } from './remove-role.js';
import { ResetMfaCommand } from './reset-mfa.js';
import { ResetPasswordCommand } from './reset-password.js';
import { RevokeTokenCommand } from './revoke-token.js';
import { SetMemberRolesCommand } from './set-member-roles.js';
import { TestPoliciesCommand } from './test-policies.js';

/** The commands of the `auth` group, in the order its help lists them. */
export const AUTH_GROUP_COMMANDS: CommandClass[] = [
  CreateUserCommand,
  ListUsersCommand,
  ResetPasswordCommand,
  ResetMfaCommand,
  DisableUserCommand,
  EnableUserCommand,
  ConfirmEmailCommand,
  DeleteUserCommand,
  CreateRoleCommand,
  ListRolesCommand,
  DeleteRoleCommand,
  AddRoleCommand,
  RemoveRoleCommand,
  CreateOrgCommand,
  ListOrgsCommand,
  ListMembersCommand,
  AddMemberCommand,
  SetMemberRolesCommand,
  RemoveMemberCommand,
  DeleteOrgCommand,
  CheckCommand,
  TestPoliciesCommand,
  PolicyDiffCommand,
  PolicyLintCommand,
  CreateTokenCommand,
  ListTokensCommand,
  RevokeTokenCommand,
  ImportLegacyTokenCommand,
  AuditCommand,
  AuditVerifyCommand,
  AuditPruneCommand,
  MigrateCommand,
  RlsApplyCommand,
];

/** A command's name within the group: `create-user`, `audit verify`. */
const nameOf = (command: CommandClass) => command.paths?.[0]?.slice(1).join(' ');

const commandList = AUTH_GROUP_COMMANDS.map(
  (command) => `- \`auth ${nameOf(command)}\`: ${command.usage?.description}`,
).join('\n');

/**
 * `service-auth auth` and `service-auth auth --help`: what the group does and which commands it
 * has. Without it, clipanion answers a bare group name with "Command not found".
 */
export class AuthGroupCommand extends Command {
  static override paths = [['auth']];

  static override usage = Command.Usage({
    description: "Manage service-auth's users, roles, tokens and database",
    details: `
      Each command finds its database from \`--database URL\`, else \`SERVICE_AUTH_DATABASE_URL\`, else
      \`sqlite:service-auth.sqlite\` in the working directory, and migrates a fresh database first (unless
      \`SERVICE_AUTH_AUTO_MIGRATE\` is false). With \`--app <module>\`, it loads the application instead (its
      default export or its export \`app\`), so that the application's configuration and event handlers apply.

      The commands:

      ${commandList.replace(/\n/g, '\n      ')}

      Output goes to stdout, errors to stderr. The exit status is 0 on success, 1 when the command failed (and
      changed nothing), 2 when the command line is wrong. Run a command with \`--help\` for its options and
      examples.
    `,
    examples: [
      [
        'Create a first administrator, prompting for the password',
        '$0 auth create-user --email admin@example.com --role admin --admin',
      ],
      ['List the users as JSON', '$0 auth list-users --json'],
      [
        'Reset a password through the application, so that its rules and event handlers apply',
        '$0 auth reset-password ada@example.com --app dist/app.js',
      ],
      [
        'Disable an account: its sessions end, its tokens are refused until it is enabled',
        '$0 auth disable-user ada@example.com',
      ],
      ['Create a token for a script', '$0 auth create-token --email ci@example.com --name deploy'],
      ['Migrate a PostgreSQL database', '$0 auth migrate --database postgresql://auth@db.internal/app'],
    ],
  });

  // Whatever follows `auth` when it names no command of the group (clipanion prefers a command
  // that matches), so that a typo is answered "unknown command" rather than "extraneous argument".
  rest = Option.Proxy();

  async execute(): Promise<number> {
    const [first] = this.rest;
    // `service-auth auth --version` answers as `service-auth --version` does.
    if (first === '--version' || first === '-v') {
      this.context.stdout.write(`${this.cli.binaryVersion ?? '<unknown>'}\n`);
      return 0;
    }
    if (first !== undefined && first !== '--help' && first !== '-h') {
      this.context.stderr.write(`${await unknownCommand(['auth', ...this.rest], this.cli.binaryName)}\n`);
      return EXIT_USAGE;
    }
    this.context.stdout.write(this.cli.usage(AuthGroupCommand, { detailed: true }));
    return 0;
  }
}

/**
 * What to say of `auth <words>` naming no command of the group: the nearest command if one is
 * near, else the list.
 */
async function unknownCommand(args: string[], binaryName: string): Promise<string> {
  const { nearestCommand, usageError } = await import('./nearest-command.js');
  const typed = `auth ${args[1]}`;
  const nearest = nearestCommand(
    args,
    AUTH_GROUP_COMMANDS.flatMap((command) => command.paths ?? []),
  );
  // The command is named exactly, but what follows does not parse for it (a required option
  // missing, say): clipanion's own error for that command says what is wrong, the group cannot.
  const named =
    nearest && nearest.typed === nearest.name
      ? AUTH_GROUP_COMMANDS.find((command) => command.paths?.some((path) => path.join(' ') === nearest.name))
      : undefined;
  if (named) return usageError(named, args, binaryName);
  if (nearest !== undefined)
    return `Unknown command "${nearest.typed}"; did you mean "${binaryName} ${nearest.name}"? See ${binaryName} auth --help`;
  const names = AUTH_GROUP_COMMANDS.map(nameOf).join(', ');
  return `Unknown command "${typed}"; the commands are ${names}; see ${binaryName} auth --help`;
}
