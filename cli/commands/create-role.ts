import { Command, Option } from 'clipanion';
import { ServiceAuthCommand } from './base.js';

export class CreateRoleCommand extends ServiceAuthCommand {
  static override paths = [['auth', 'create-role']];

  static override usage = Command.Usage({
    category: 'Roles',
    description: 'Create a role',
    details: `
      Creates a role with this name (1 to 64 of \`A-Z a-z 0-9 _ . : -\`). What a role permits is defined in
      code, with \`auth.defineRole\` or \`auth.loadPolicies\`; this stores the name so that users can be given it.

      A role that already exists is left as it is, and the command still succeeds.
    `,
    examples: [['Create the role "analyst"', '$0 auth create-role analyst']],
  });

  name = Option.String({ name: 'name' });

  protected override async run(): Promise<void> {
    const auth = await this.auth();
    const created = await auth.roles.create(this.name);
    this.print(created ? `Created role "${this.name}"` : `Role "${this.name}" already exists; nothing changed`);
  }
}
