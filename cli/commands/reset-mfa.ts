import { Command, Option } from 'clipanion';
import { ServiceAuthCommand } from './base.js';

export class ResetMfaCommand extends ServiceAuthCommand {
  static override paths = [['auth', 'reset-mfa']];

  static override usage = Command.Usage({
    category: 'Users',
    description: "Remove a user's second factor",
    details: `
      Removes the authenticator app and the recovery codes of the account with this email, for someone who lost both: logging in takes the password alone again, and they can set up a new app from the \`/mfa\` page. Recorded in the audit log as \`mfa_disabled\` with the actor \`cli\`.

      A user without a second factor is left as they are, and the command still succeeds (exit 0), saying so.
    `,
    examples: [['Let a user who lost their phone and their codes log in with the password', '$0 auth reset-mfa ada@example.com']],
  });

  email = Option.String({ name: 'email' });

  protected override async run(): Promise<void> {
    const auth = await this.auth();
    const user = await this.existingUser(auth, this.email);
    if (!(await auth.secondFactors.remove(user.id))) {
      this.print(`${user.email} has no second factor; nothing changed`);
      return;
    }
    this.print(`Removed the second factor of ${user.email}: they log in with their password alone, and may set up a new app`);
  }
}
