import { Command, Option } from 'clipanion';
import { formatTable, tableTime } from './table.js';
import { ServiceAuthCommand } from './base.js';

export class ListMembersCommand extends ServiceAuthCommand {
  static override paths = [['auth', 'list-members']];

  static override usage = Command.Usage({
    category: 'Organizations',
    description: 'List the members of an organization',
    details: `
      Prints a table of the members of the organization (named by its slug or its id), oldest first: User ID,
      Email, Roles, Joined (UTC). With \`--json\`, prints a JSON array of \`{ user_id, email, roles, created_at
      }\`.
    `,
    examples: [
      ['List the members of acme', '$0 auth list-members acme'],
      [
        'The emails of its owners, with jq',
        '$0 auth list-members acme --json | jq -r \'.[] | select(.roles | index("owner")) | .email\'',
      ],
    ],
  });

  org = Option.String({ name: 'org' });
  json = Option.Boolean('--json', false, { description: 'Print a JSON array instead of a table' });

  protected override async run(): Promise<void> {
    // The database alone: listing needs none of the services (see `storage()`).
    const { listMembers } = await import('../../src/orgs/listing.js');
    const members = await listMembers(await this.storage(), this.org);
    if (this.json) {
      this.print(JSON.stringify(members, null, 2));
    } else if (members.length === 0) {
      this.print('No members.');
    } else {
      const rows = members.map((member) => [
        String(member.user_id),
        member.email,
        member.roles.join(', '),
        tableTime(member.created_at),
      ]);
      this.print(formatTable(['User ID', 'Email', 'Roles', 'Joined'], rows));
    }
  }
}
