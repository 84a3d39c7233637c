import { Command, Option } from 'clipanion';
import { validRoleName } from '../../src/users/role-names.js';
import { describeUser } from './describe-user.js';
import { ServiceAuthCommand } from './base.js';
import { CliFailure } from './failures.js';

export class AddRoleCommand extends ServiceAuthCommand {
  static override paths = [['auth', 'add-role']];

  static override usage = Command.Usage({
    category: 'Roles',
    description: 'Give a user a role',
    details: `
      Gives the user with this email the role. A role that does not exist yet is created (and the command says so). A user who already holds the role keeps it, and the command still succeeds.

      When roles are defined (global roles in \`./policies\`, or the application's with \`--app\`) and none of them is this one, the role would grant nothing (most likely a typo): the command refuses unless \`--force\`.

      Running servers that share the database see the change within a second.
    `,
    examples: [['Give ada@example.com the role "admin"', '$0 auth add-role ada@example.com admin']],
  });

  email = Option.String({ name: 'email' });
  role = Option.String({ name: 'role' });
  force = Option.Boolean('--force', false, { description: 'Give the role even though no definition names it' });

  protected override async run(): Promise<void> {
    const auth = await this.auth();
    const role = validRoleName(this.role);
    const user = await this.existingUser(auth, this.email);
    if (user.hasRole(role)) {
      this.print(`${user.email} already has the role "${role}"; nothing changed`);
      return;
    }
    const defined = auth.roleRules.names();
    if (!this.force && defined.length > 0 && !defined.includes(role)) {
      const { closest } = await import('fastest-levenshtein');
      throw new CliFailure(`No definition names the role "${role}" (the defined roles are ${defined.join(', ')}; did you mean "${closest(role, defined)}"?): it would grant nothing. Give it anyway with --force`);
    }
    const roleExisted = (await auth.roles.list()).some((existing) => existing.name === role);
    const updated = await auth.users.addRole(user.id, role);
    if (!roleExisted) this.print(`Created role "${role}"`);
    this.print(`Gave the role "${role}" to ${describeUser(updated)}`);
  }
}
