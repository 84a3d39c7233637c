import { Command, Option } from 'clipanion';
import { ServiceAuthCommand } from './base.js';
import { withOrgRoles } from './org-roles.js';

export class SetMemberRolesCommand extends ServiceAuthCommand {
  static override paths = [['auth', 'set-member-roles']];

  static override usage = Command.Usage({
    category: 'Organizations',
    description: "Change a member's organization roles",
    details: `
      Replaces the organization roles of the member with this email in the organization (named by its slug or
      its id) with those given by \`--role\`, once or more. Each role must be defined (\`auth.defineOrgRole\`, or
      \`orgRoles\` in a policy file). A user who is not a member is refused (\`add-member\` makes them one), and so
      is the last member holding an owner role (\`SERVICE_AUTH_ORG_OWNER_ROLES\`) losing it.

      Running servers that share the database see the change within a second.
    `,
    examples: [
      [
        'Make bob@example.com an admin of acme, and nothing else',
        '$0 auth set-member-roles acme bob@example.com --role admin',
      ],
      ['With two roles', '$0 auth set-member-roles acme bob@example.com --role admin --role member'],
    ],
  });

  org = Option.String({ name: 'org' });
  email = Option.String({ name: 'email' });
  roles = Option.Array('--role', {
    required: true,
    description: 'An organization role the member holds afterwards (repeatable)',
  });

  protected override async run(): Promise<void> {
    const auth = await this.auth();
    const user = await this.existingUser(auth, this.email);
    const org = await auth.orgs.get(this.org);
    const before = await auth.orgs.membership(org.id, user.id);
    const member = await withOrgRoles(auth, this.roles, () => auth.orgs.setMemberRoles(org.id, user.id, this.roles));
    const roles = member.roles.join(', ');
    const previous = before ? [...before.roles].sort().join(', ') : undefined;
    if (previous === roles) this.print(`${member.email} already holds ${roles} in ${org.slug}; nothing changed`);
    else
      this.print(
        `${member.email} now holds ${roles} in ${org.slug}${previous === undefined ? '' : ` (was ${previous})`}`,
      );
  }
}
