import { Command, Option } from 'clipanion';
import { AuthError } from '../../src/errors.js';
import { ServiceAuthCommand } from './base.js';
import { CliFailure } from './failures.js';

export class DeleteOrgCommand extends ServiceAuthCommand {
  static override paths = [['auth', 'delete-org']];

  static override usage = Command.Usage({
    category: 'Organizations',
    description: 'Delete an organization',
    details: `
      Deletes the organization (named by its slug or its id) with its memberships, its invitations and the API
      tokens bound to it. An organization with other members than its owners is refused unless \`--force\` is
      given.

      The application's own rows of the organization are not touched. Running servers that share the database
      see the change within a second.
    `,
    examples: [
      ['Delete acme, whose only members are its owners', '$0 auth delete-org acme'],
      ['Delete acme and every membership in it', '$0 auth delete-org acme --force'],
    ],
  });

  org = Option.String({ name: 'org' });
  force = Option.Boolean('--force', false, { description: 'Delete it even with other members than its owners' });

  protected override async run(): Promise<void> {
    const auth = await this.auth();
    // The service counts the members in the transaction that deletes, so none can join between.
    const org = await auth.orgs.delete(this.org, null, { onlyOwners: !this.force }).catch((error: unknown) => {
      if (error instanceof AuthError && error.code === 'org_has_members')
        throw new CliFailure(`${error.message}; nothing was deleted (with --force, it is deleted with them)`);
      throw error;
    });
    this.print(
      `Deleted organization ${org.slug} (id ${org.id}), with ${org.members} member${org.members === 1 ? '' : 's'}`,
    );
  }
}
