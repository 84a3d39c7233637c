import { Command, Option } from 'clipanion';
import { ServiceAuthCommand } from './base.js';
import { withOrgRoles } from './org-roles.js';

export class AddMemberCommand extends ServiceAuthCommand {
  static override paths = [['auth', 'add-member']];

  static override usage = Command.Usage({
    category: 'Organizations',
    description: 'Make a user a member of an organization',
    details: `
      Makes the user with this email a member of the organization (named by its slug or its id) with the
      organization roles given by \`--role\`, once or more. Each role must be defined (\`auth.defineOrgRole\`, or
      \`orgRoles\` in a policy file); a user who is a member already is refused: change their roles with
      \`set-member-roles\`.

      Running servers that share the database see the change within a second.
    `,
    examples: [
      ['Make bob@example.com a member of acme', '$0 auth add-member acme bob@example.com --role member'],
      ['With two roles', '$0 auth add-member acme bob@example.com --role admin --role member'],
    ],
  });

  org = Option.String({ name: 'org' });
  email = Option.String({ name: 'email' });
  roles = Option.Array('--role', { required: true, description: 'An organization role to give (repeatable)' });

  protected override async run(): Promise<void> {
    const auth = await this.auth();
    const user = await this.existingUser(auth, this.email);
    const member = await withOrgRoles(auth, this.roles, () => auth.orgs.addMember(this.org, user.id, this.roles));
    const org = await auth.orgs.get(this.org);
    this.print(`Made ${member.email} a member of ${org.slug} (${member.roles.join(', ')})`);
  }
}
