import { Command, Option } from 'clipanion';
import { describeUser } from './describe-user.js';
import { ServiceAuthCommand } from './base.js';

export class RemoveRoleCommand extends ServiceAuthCommand {
  static override paths = [['auth', 'remove-role']];

  static override usage = Command.Usage({
    category: 'Roles',
    description: 'Take a role from a user',
    details: `
      Takes the role from the user with this email. A user who does not hold the role is an error (a mistyped
      role name, most likely); the role itself stays, for other users.

      Running servers that share the database see the change within a second.
    `,
    examples: [['Take the role "admin" from ada@example.com', '$0 auth remove-role ada@example.com admin']],
  });

  email = Option.String({ name: 'email' });
  role = Option.String({ name: 'role' });

  protected override async run(): Promise<void> {
    const auth = await this.auth();
    const user = await this.existingUser(auth, this.email);
    const updated = await auth.users.removeRole(user.id, this.role);
    this.print(`Took the role "${this.role}" from ${describeUser(updated)}`);
  }
}
