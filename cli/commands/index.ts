/**
 * The `auth` command classes, for an application's own clipanion CLI:
 *
 *     import { authCommands } from 'service-auth/cli';
 *     for (const command of authCommands) cli.register(command);
 */
import type { CommandClass } from 'clipanion';
import { AddMemberCommand } from './add-member.js';
import { AddRoleCommand } from './add-role.js';
import { AuditCommand } from './audit.js';
import { AuditPruneCommand } from './audit-prune.js';
import { AuditVerifyCommand } from './audit-verify.js';
import { CheckCommand } from './check.js';
import { ConfirmEmailCommand } from './confirm-email.js';
import { AUTH_GROUP_COMMANDS, AuthGroupCommand } from './auth-group.js';
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

export { ServiceAuthCommand } from './base.js';
export {
  AddMemberCommand,
  AddRoleCommand,
  AuditCommand,
  AuditPruneCommand,
  AuditVerifyCommand,
  AuthGroupCommand,
  CheckCommand,
  ConfirmEmailCommand,
  CreateOrgCommand,
  CreateRoleCommand,
  CreateTokenCommand,
  CreateUserCommand,
  DeleteOrgCommand,
  DeleteRoleCommand,
  DeleteUserCommand,
  DisableUserCommand,
  EnableUserCommand,
  ImportLegacyTokenCommand,
  ListMembersCommand,
  ListOrgsCommand,
  ListRolesCommand,
  ListTokensCommand,
  ListUsersCommand,
  MigrateCommand,
  RlsApplyCommand,
  PolicyDiffCommand,
  PolicyLintCommand,
  RemoveMemberCommand,
  RemoveRoleCommand,
  ResetMfaCommand,
  ResetPasswordCommand,
  RevokeTokenCommand,
  SetMemberRolesCommand,
  TestPoliciesCommand,
};

/** Every command of the `auth` group, and the group's own help (`auth`, `auth --help`). */
export const authCommands: CommandClass[] = [AuthGroupCommand, ...AUTH_GROUP_COMMANDS];
