import { Command, Option } from 'clipanion';
import { ServiceAuthCommand } from './base.js';

export class DeleteRoleCommand extends ServiceAuthCommand {
  static override paths = [['auth', 'delete-role']];

  static override usage = Command.Usage({
    category: 'Roles',
    description: 'Delete a role',
    details: `
      Deletes the role with this name. A role that users still hold is refused, naming how many, unless
      \`--force\` is given, which takes it from them in the same step. An unknown role is an error.

      What the role permits (its rules in code or in JSON files) is not touched: remove those from the
      application. Running servers that share the database see the change within a second.
    `,
    examples: [
      ['Delete the role "viewer", which nobody holds', '$0 auth delete-role viewer'],
      ['Delete the role "editor" and take it from everyone who holds it', '$0 auth delete-role editor --force'],
    ],
  });

  name = Option.String({ name: 'name' });
  force = Option.Boolean('--force', false, { description: 'Take the role from the users who hold it, then delete it' });

  protected override async run(): Promise<void> {
    const auth = await this.auth();
    const holders = await auth.roles.delete(this.name, { force: this.force });
    this.print(
      `Deleted role "${this.name}"${holders ? `; took it from ${holders} user${holders === 1 ? '' : 's'}` : ''}`,
    );
  }
}
