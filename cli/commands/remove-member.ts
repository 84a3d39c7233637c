import { Command, Option } from 'clipanion';
import { ServiceAuthCommand } from './base.js';

export class RemoveMemberCommand extends ServiceAuthCommand {
  static override paths = [['auth', 'remove-member']];

  static override usage = Command.Usage({
    category: 'Organizations',
    description: 'Remove a member from an organization',
    details: `
      Ends the membership of the user with this email in the organization (named by its slug or its id). The
      last member holding an owner role (\`SERVICE_AUTH_ORG_OWNER_ROLES\`) cannot be removed: give another member
      an owner role first, or delete the organization.

      Running servers that share the database see the change within a second.
    `,
    examples: [['Remove bob@example.com from acme', '$0 auth remove-member acme bob@example.com']],
  });

  org = Option.String({ name: 'org' });
  email = Option.String({ name: 'email' });

  protected override async run(): Promise<void> {
    const auth = await this.auth();
    const user = await this.existingUser(auth, this.email);
    const org = await auth.orgs.get(this.org);
    await auth.orgs.removeMember(org.id, user.id);
    this.print(`Removed ${user.email} from ${org.slug}`);
  }
}
