import { Command, Option } from 'clipanion';
import { ServiceAuthCommand } from './base.js';

export class DisableUserCommand extends ServiceAuthCommand {
  static override paths = [['auth', 'disable-user']];

  static override usage = Command.Usage({
    category: 'Users',
    description: 'Disable a user',
    details: `
      Disables the account with this email without deleting anything. Every session of the user ends at once,
      and their API tokens are refused while the account is disabled; every running server that shares the database
      refuses both within a second. Login with the right password answers 403 \`account_disabled\` (a wrong
      password stays 401 \`invalid_credentials\`), and \`/forgot\` sends the user nothing.

      \`auth enable-user\` undoes it: the same tokens work again, and the user logs in again for a new session.

      A user who is already disabled is left as they are, and the command still succeeds (exit 0), saying so.
      The \`user_disabled\` event fires on a change; load the application with \`--app\` for its event handlers to
      run.
    `,
    examples: [
      ['Disable an account', '$0 auth disable-user ada@example.com'],
      [
        'Disable it through the application, so that its user_disabled handlers run',
        '$0 auth disable-user ada@example.com --app dist/app.js',
      ],
    ],
  });

  email = Option.String({ name: 'email' });

  protected override async run(): Promise<void> {
    const auth = await this.auth();
    const user = await this.existingUser(auth, this.email);
    if (user.disabled) {
      this.print(`${user.email} is already disabled; nothing changed`);
      return;
    }
    await auth.users.disable(user.id);
    this.print(
      `Disabled ${user.email}: their sessions were ended, and their API tokens are refused until the account is enabled`,
    );
  }
}
