import { Command, Option } from 'clipanion';
import { userStatus } from './describe-user.js';
import { formatTable, tableTime } from './table.js';
import { ServiceAuthCommand } from './base.js';

export class ListUsersCommand extends ServiceAuthCommand {
  static override paths = [['auth', 'list-users']];

  static override usage = Command.Usage({
    category: 'Users',
    description: 'List the users',
    details: `
      Prints a table of every user, oldest first: ID, Email, Status, Admin, Roles, Created (UTC). Status is
      \`active\`, \`disabled\` (see \`auth disable-user\`), \`unconfirmed\` (registered with
      \`SERVICE_AUTH_EMAIL_CONFIRMATION\` on and not confirmed yet; see \`auth confirm-email\`), or \`disabled,
      unconfirmed\`.

      With \`--json\`, prints a JSON array of the same user objects the HTTP API returns: \`{ id, email,
      is_admin, roles, created_at, disabled, email_confirmed, mfa_enabled }\`.
    `,
    examples: [
      ['List the users', '$0 auth list-users'],
      [
        'The emails of the administrators, with jq',
        "$0 auth list-users --json | jq -r '.[] | select(.is_admin) | .email'",
      ],
      [
        'The emails of the disabled users, with jq',
        "$0 auth list-users --json | jq -r '.[] | select(.disabled) | .email'",
      ],
    ],
  });

  json = Option.Boolean('--json', false, { description: 'Print a JSON array instead of a table' });

  protected override async run(): Promise<void> {
    // The database alone: listing needs none of the services (see `storage()`).
    const { listUsers } = await import('../../src/users/lookup.js');
    const users = await listUsers(await this.storage());
    if (this.json) {
      this.print(JSON.stringify(users, null, 2));
    } else if (users.length === 0) {
      this.print('No users.');
    } else {
      const rows = users.map((user) => [
        String(user.id),
        user.email,
        userStatus(user),
        user.is_admin ? 'yes' : 'no',
        user.roles.size ? [...user.roles].join(', ') : '-',
        tableTime(user.created_at),
      ]);
      this.print(formatTable(['ID', 'Email', 'Status', 'Admin', 'Roles', 'Created'], rows));
    }
  }
}
