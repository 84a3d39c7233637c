import { Command, Option } from 'clipanion';
import { ServiceAuthCommand } from './base.js';

export class ConfirmEmailCommand extends ServiceAuthCommand {
  static override paths = [['auth', 'confirm-email']];

  static override usage = Command.Usage({
    category: 'Users',
    description: "Confirm a user's email address by hand",
    details: `
      Marks the email address of this user as confirmed, as opening the confirmation link would, for a user
      who registered while \`SERVICE_AUTH_EMAIL_CONFIRMATION\` was on and cannot (or need not) open the mail. With
      confirmation on, such a user can log in from then on. Users made by \`auth create-user\` or
      \`auth.users.create\` are confirmed already.

      An address that is already confirmed is left as it is, and the command still succeeds (exit 0), saying
      so. The \`email_confirmed\` event fires on a change; load the application with \`--app\` for its event
      handlers to run.
    `,
    examples: [
      ['Confirm an address by hand', '$0 auth confirm-email ada@example.com'],
      [
        'The users whose address is still unconfirmed, with jq',
        "$0 auth list-users --json | jq -r '.[] | select(.email_confirmed | not) | .email'",
      ],
    ],
  });

  email = Option.String({ name: 'email' });

  protected override async run(): Promise<void> {
    const auth = await this.auth();
    const user = await this.existingUser(auth, this.email);
    if (user.email_confirmed) {
      this.print(`The email address of ${user.email} is already confirmed; nothing changed`);
      return;
    }
    await auth.users.confirmEmail(user.id);
    this.print(`Confirmed the email address of ${user.email}`);
  }
}
