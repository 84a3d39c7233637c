import { Command, Option } from 'clipanion';
import { exclusivePasswordOptions, readNewPassword } from './password-input.js';
import { ServiceAuthCommand } from './base.js';

export class ResetPasswordCommand extends ServiceAuthCommand {
  static override paths = [['auth', 'reset-password']];

  static override usage = Command.Usage({
    category: 'Users',
    description: "Set a user's password",
    details: `
      Sets a new password for the user with this email, as a completed password reset does: the password rules
      apply, every session of the user ends (and every API token, unless
      \`SERVICE_AUTH_REVOKE_TOKENS_ON_PASSWORD_RESET\` is false), pending reset links stop working, and the
      \`password_reset_completed\` event fires. Load the application with \`--app\` for its own password rules and
      event handlers to apply.

      The password comes from \`--password\`, from the first line of standard input with \`--password-stdin\`,
      or, with neither, from a prompt on the terminal that asks twice without echo.
    `,
    examples: [
      ['Reset a password, prompting for the new one', '$0 auth reset-password ada@example.com'],
      [
        'Reset it through the application, so that its rules and event handlers apply',
        '$0 auth reset-password ada@example.com --app dist/app.js',
      ],
      [
        'Read the new password from standard input',
        'printf "%s\\n" "$PASSWORD" | $0 auth reset-password ada@example.com --password-stdin',
      ],
    ],
  });

  static override schema = [exclusivePasswordOptions];

  email = Option.String({ name: 'email' });
  password = Option.String('--password', {
    description: 'The new password (visible in the process list: prefer --password-stdin or the prompt)',
  });
  passwordStdin = Option.Boolean('--password-stdin', false, {
    description: 'Read the new password from the first line of standard input',
  });

  protected override async run(): Promise<void> {
    const auth = await this.auth();
    // An unknown email is said before the password is asked for, not after it was typed twice.
    const user = await this.existingUser(auth, this.email);
    const password = await readNewPassword(this, this.context, user.email);
    await auth.resets.reset(user.id, password);
    const ended = auth.config.tokens.revokeOnPasswordReset ? 'sessions and API tokens' : 'sessions';
    this.print(`Reset the password of ${user.email}; their ${ended} were ended`);
  }
}
