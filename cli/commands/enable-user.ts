import { Command, Option } from 'clipanion';
import { ServiceAuthCommand } from './base.js';

export class EnableUserCommand extends ServiceAuthCommand {
  static override paths = [['auth', 'enable-user']];

  static override usage = Command.Usage({
    category: 'Users',
    description: 'Enable a disabled user',
    details: `
      Enables the account with this email again after \`auth disable-user\`. Their API tokens work again
      (running servers that share the database accept them within a second); the sessions that disabling ended stay
      ended, so the user logs in again.

      A user who is not disabled is left as they are, and the command still succeeds (exit 0), saying so. The
      \`user_enabled\` event fires on a change; load the application with \`--app\` for its event handlers to run.
    `,
    examples: [
      ['Enable an account again', '$0 auth enable-user ada@example.com'],
      [
        'Enable it through the application, so that its user_enabled handlers run',
        '$0 auth enable-user ada@example.com --app dist/app.js',
      ],
    ],
  });

  email = Option.String({ name: 'email' });

  protected override async run(): Promise<void> {
    const auth = await this.auth();
    const user = await this.existingUser(auth, this.email);
    if (!user.disabled) {
      this.print(`${user.email} is not disabled; nothing changed`);
      return;
    }
    await auth.users.enable(user.id);
    this.print(`Enabled ${user.email}: their API tokens work again, and they log in again for a new session`);
  }
}
