import { Command, Option } from 'clipanion';
import { ServiceAuthCommand } from './base.js';

export class CreateOrgCommand extends ServiceAuthCommand {
  static override paths = [['auth', 'create-org']];

  static override usage = Command.Usage({
    category: 'Organizations',
    description: 'Create an organization',
    details: `
      Creates the organization with this name (1 to 100 characters), its owner a member with the roles of
      \`SERVICE_AUTH_ORG_OWNER_ROLES\` (default \`owner\`). The slug, which names it in URLs and in the other
      commands like its id, is derived from the name unless \`--slug\` gives it (2 to 48 of a-z 0-9 -, not digits
      alone): a derived slug that is taken gets a numeric suffix, a given one is refused.

      An owner of \`SERVICE_AUTH_MAX_ORGS_PER_USER\` organizations already (default 50) is refused (too many organizations), as over HTTP.
    `,
    examples: [
      [
        'Create "Acme Inc." (slug acme-inc), owned by ada@example.com',
        '$0 auth create-org --name "Acme Inc." --owner ada@example.com',
      ],
      ['Choose the slug', '$0 auth create-org --name "Acme Inc." --slug acme --owner ada@example.com'],
    ],
  });

  name = Option.String('--name', { required: true, description: 'The organization’s name' });
  slug = Option.String('--slug', { description: 'Its slug; derived from the name if not given' });
  owner = Option.String('--owner', { required: true, description: 'The email of the user who becomes its owner' });

  protected override async run(): Promise<void> {
    const auth = await this.auth();
    const owner = await this.existingUser(auth, this.owner);
    const org = await auth.orgs.create({
      name: this.name,
      owner: owner.id,
      ...(this.slug !== undefined && { slug: this.slug }),
    });
    this.print(
      `Created organization ${org.slug} (id ${org.id}, ${JSON.stringify(org.name)}), owned by ` +
        `${owner.email} (${auth.config.orgs.ownerRoles.join(', ')})`,
    );
  }
}
