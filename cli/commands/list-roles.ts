import { Command, Option } from 'clipanion';
import { formatTable, tableTime } from './table.js';
import { ServiceAuthCommand } from './base.js';

export class ListRolesCommand extends ServiceAuthCommand {
  static override paths = [['auth', 'list-roles']];

  static override usage = Command.Usage({
    category: 'Roles',
    description: 'List the roles',
    details: `
      Prints a table of every role, by name: Name, Created (UTC). With \`--json\`, prints a JSON array of \`{ name, created_at }\`.
    `,
    examples: [
      ['List the roles', '$0 auth list-roles'],
      ['List them as JSON', '$0 auth list-roles --json'],
    ],
  });

  json = Option.Boolean('--json', false, { description: 'Print a JSON array instead of a table' });

  protected override async run(): Promise<void> {
    const auth = await this.auth();
    const roles = await auth.roles.list();
    if (this.json) {
      this.print(JSON.stringify(roles, null, 2));
    } else if (roles.length === 0) {
      this.print('No roles.');
    } else {
      this.print(
        formatTable(
          ['Name', 'Created'],
          roles.map((role) => [role.name, tableTime(role.created_at)]),
        ),
      );
    }
  }
}
