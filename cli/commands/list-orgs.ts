import { Command, Option } from 'clipanion';
import { formatTable, tableTime } from './table.js';
import { ServiceAuthCommand } from './base.js';

export class ListOrgsCommand extends ServiceAuthCommand {
  static override paths = [['auth', 'list-orgs']];

  static override usage = Command.Usage({
    category: 'Organizations',
    description: 'List the organizations',
    details: `
      Prints a table of every organization, by slug: ID, Slug, Name, Members, Created (UTC). With \`--json\`,
      prints a JSON array of \`{ id, slug, name, created_at, members }\`, \`members\` their number.
    `,
    examples: [
      ['List the organizations', '$0 auth list-orgs'],
      [
        'The slugs of those without members, with jq',
        "$0 auth list-orgs --json | jq -r '.[] | select(.members == 0) | .slug'",
      ],
    ],
  });

  json = Option.Boolean('--json', false, { description: 'Print a JSON array instead of a table' });

  protected override async run(): Promise<void> {
    // The database alone: listing needs none of the services (see `storage()`).
    const { listOrgs } = await import('../../src/orgs/listing.js');
    const orgs = await listOrgs(await this.storage());
    if (this.json) {
      this.print(JSON.stringify(orgs, null, 2));
    } else if (orgs.length === 0) {
      this.print('No organizations.');
    } else {
      const rows = orgs.map((org) => [
        String(org.id),
        org.slug,
        org.name,
        String(org.members),
        tableTime(org.created_at),
      ]);
      this.print(formatTable(['ID', 'Slug', 'Name', 'Members', 'Created'], rows));
    }
  }
}
