import { Command, Option } from 'clipanion';
import { AuthError } from '../../src/errors.js';
import { validEmail } from '../../src/users/emails.js';
import { validRoleName } from '../../src/users/role-names.js';
import { describeUser } from './describe-user.js';
import { required } from './option-rules.js';
import { exclusivePasswordOptions, readNewPassword } from './password-input.js';
import { ServiceAuthCommand } from './base.js';

export class CreateUserCommand extends ServiceAuthCommand {
  static override paths = [['auth', 'create-user']];

  static override usage = Command.Usage({
    category: 'Users',
    description: 'Create a user',
    details: `
      Creates a user with the given email and password. The password rules apply exactly as they do over HTTP,
      and every rule the password fails is listed.

      The password comes from \`--password\`, from the first line of standard input with \`--password-stdin\`,
      or, with neither, from a prompt on the terminal that asks twice without echo.

      Each \`--role\` that does not exist yet is created (and the command says so). \`--admin\` sets the
      user's \`is_admin\` flag; it is independent of a role named \`admin\`.
    `,
    examples: [
      [
        'Create a first administrator, prompting for the password',
        '$0 auth create-user --email admin@example.com --role admin --admin',
      ],
      [
        'Create a user, reading the password from standard input',
        'printf "%s\\n" "$PASSWORD" | $0 auth create-user --email ada@example.com --password-stdin --role analyst',
      ],
      [
        'Create a user in a PostgreSQL database',
        '$0 auth create-user --email ada@example.com --database postgresql://auth@db.internal/app',
      ],
    ],
  });

  static override schema = [required('email', '--email'), exclusivePasswordOptions];

  // Required, but checked by the schema: clipanion's own message for a missing option is "Command not found".
  email = Option.String('--email', { description: "The new user's email, required (trimmed and stored lower-cased)" });
  password = Option.String('--password', {
    description: 'The password (visible in the process list: prefer --password-stdin or the prompt)',
  });
  passwordStdin = Option.Boolean('--password-stdin', false, {
    description: 'Read the password from the first line of standard input',
  });
  roles = Option.Array('--role', [], {
    description: 'Give the user this role (repeatable); a missing role is created',
  });
  admin = Option.Boolean('--admin', false, { description: "Set the user's is_admin flag" });

  protected override async run(): Promise<void> {
    const auth = await this.auth();
    // What can be checked before asking for the password is, so that nobody types a password
    // twice only to learn that the email was mistyped or taken. `users.create` checks it all again.
    const email = validEmail(this.email ?? ''); // never undefined here: the schema requires --email
    const roles = [...new Set(this.roles.map(validRoleName))];
    if (await auth.users.findByEmail(email))
      throw new AuthError('email_taken', `a user with email ${email} already exists`);

    const password = await readNewPassword(this, this.context, email);
    const existing = new Set((await auth.roles.list()).map((role) => role.name));
    const user = await auth.users.create({ email, password, roles, isAdmin: this.admin });
    for (const role of roles.filter((name) => !existing.has(name))) this.print(`Created role "${role}"`);
    this.print(`Created user ${describeUser(user)}`);
  }
}
