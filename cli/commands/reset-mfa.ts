import { Command, Option } from 'clipanion';
import { ServiceAuthCommand } from './base.js';

export class ResetMfaCommand extends ServiceAuthCommand {
  static override paths = [['auth', 'reset-mfa']];

  static override usage = Command.Usage({
    category: 'Users',
    description: "Remove a user's app, recovery codes and passkeys",
    details: `
      Removes the authenticator app, the recovery codes and the passkeys of the account with this email, for
      someone who lost them, or whose device someone else now holds, and ends the account's sessions (running
      servers refuse them within a second): logging in takes the password alone again, and they can set up a new
      app from the \`/mfa\` page and new passkeys from \`/passkeys\`. Recorded in the audit log as \`mfa_disabled\`
      (one record for the app, one for the passkeys) with the actor \`cli\`.

      A user without a second factor is left as they are, and the command still succeeds (exit 0), saying so.
    `,
    examples: [
      ['Let a user who lost their phone and their codes log in with the password', '$0 auth reset-mfa ada@example.com'],
    ],
  });

  email = Option.String({ name: 'email' });

  protected override async run(): Promise<void> {
    const auth = await this.auth();
    const user = await this.existingUser(auth, this.email);
    const removed = await auth.secondFactors.reset(user.id);
    if (!removed.totp && removed.passkeys === 0) {
      this.print(`${user.email} has no second factor; nothing changed`);
      return;
    }
    const what = [
      removed.totp ? 'the authenticator app and recovery codes' : null,
      removed.passkeys > 0 ? `${removed.passkeys} passkey${removed.passkeys === 1 ? '' : 's'}` : null,
    ]
      .filter(Boolean)
      .join(' and ');
    this.print(
      `Removed ${what} of ${user.email}, and ended their sessions: they log in with their password alone, and may set up new ones`,
    );
  }
}
