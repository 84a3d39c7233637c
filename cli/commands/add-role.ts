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
      Gives the user with this email the role. A role not yet in the database (one a definition names, or one
      given with \`--force\`) is created, and the command says so. A user who already holds the role keeps it, and
      the command still succeeds.

      A role that exists is given: one a definition names (global roles in \`./policies\`, or the
      application's with \`--app\`), or one created by \`create-role\` or \`create-user --role\`. When no
      definition gives it rules yet, the command says so on stderr (it grants nothing until one does) and still
      succeeds. A name that is none of these (most likely a typo) is refused, naming the nearest defined role,
      unless \`--force\`.

      Running servers that share the database see the change within a second.
    `,
    examples: [['Give ada@example.com the role "admin"', '$0 auth add-role ada@example.com admin']],
  });

  email = Option.String({ name: 'email' });
  role = Option.String({ name: 'role' });
  force = Option.Boolean('--force', false, {
    description: 'Give (and create) a role that neither a definition names nor was created',
  });

  protected override async run(): Promise<void> {
    const auth = await this.auth();
    const role = validRoleName(this.role);
    const user = await this.existingUser(auth, this.email);
    if (user.hasRole(role)) {
      this.print(`${user.email} already has the role "${role}"; nothing changed`);
      return;
    }
    // Without a definition known here (no ./policies, no --app) nothing tells a typo from a role.
    const defined = auth.roleRules.names();
    const standing = defined.length > 0 ? await auth.roles.standing(role) : 'defined';
    if (standing === 'unknown' && !this.force) {
      const { closest } = await import('fastest-levenshtein');
      const existing = [...new Set([...defined, ...(await auth.roles.list()).map((stored) => stored.name)])];
      const known = `the defined roles are ${defined.join(', ')}; did you mean "${closest(role, existing)}"?`;
      const fix = 'Create it with create-role, or give it anyway with --force';
      throw new CliFailure(
        `No role is named "${role}": no definition names it and it was never created (${known}). ${fix}`,
      );
    }
    const roleExisted = (await auth.roles.list()).some((existing) => existing.name === role);
    const updated = await auth.users.addRole(user.id, role);
    if (!roleExisted) this.print(`Created role "${role}"`);
    if (standing !== 'defined') {
      const where = 'auth.defineRole, or ./policies';
      this.context.stderr.write(
        `No definition gives the role "${role}" rules yet: it grants nothing until one does (${where})\n`,
      );
    }
    this.print(`Gave the role "${role}" to ${describeUser(updated)}`);
  }
}
