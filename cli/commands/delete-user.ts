import { Command, Option } from 'clipanion';
import type { AuthUser } from '../../src/users/auth-user.js';
import { normalizeEmail } from '../../src/users/emails.js';
import type { AuthParts } from '../../src/wiring.js';
import { describeUser } from './describe-user.js';
import { CliFailure } from './failures.js';
import { askLine, canAsk } from './typed-confirmation.js';
import { ServiceAuthCommand } from './base.js';

export class DeleteUserCommand extends ServiceAuthCommand {
  static override paths = [['auth', 'delete-user']];

  static override usage = Command.Usage({
    category: 'Users',
    description: 'Delete a user and everything of theirs',
    details: `
      Deletes the user with this email and, in the same transaction, everything of theirs: sessions, API
      tokens, pending password reset and email confirmation links, and role links (the roles themselves stay).
      Running servers that share the database refuse the user's sessions and tokens within a second. The email
      address may be used again at once. It cannot be undone: to lock someone out for a while, use \`auth
      disable-user\`.

      Without \`--yes\`, the command says what will be deleted and asks on the terminal to type the email to
      confirm; anything else changes nothing (exit 1). Off a terminal (a script, a pipe), it fails without
      \`--yes\` (exit 1) and changes nothing.

      The \`user_deleted\` event fires; load the application with \`--app\` for its event handlers to run.
    `,
    examples: [
      ['Delete a user, typing the email to confirm', '$0 auth delete-user ada@example.com'],
      ['Delete a user from a script, without asking', '$0 auth delete-user ada@example.com --yes'],
    ],
  });

  email = Option.String({ name: 'email' });
  yes = Option.Boolean('-y,--yes', false, { description: 'Delete without asking (needed off a terminal)' });

  protected override async run(): Promise<void> {
    const auth = await this.auth();
    // An unknown email is said before anything is asked, as `reset-password` does.
    const user = await this.existingUser(auth, this.email);
    const holdings = await credentialsOf(auth, user);
    if (!this.yes) await this.confirm(user, holdings);
    const deleted = await auth.users.delete(user.id);
    this.print(`Deleted user ${describeUser(deleted)}${holdings ? `, with ${holdings}` : ''}`);
  }

  /** Asks the operator to type the email; anything else, or no terminal to ask on, is a failure. */
  private async confirm(user: AuthUser, holdings: string): Promise<void> {
    if (!canAsk(this.context)) {
      throw new CliFailure(
        `Not deleted: standard input is not a terminal to confirm on; pass --yes to delete ${user.email} without asking`,
      );
    }
    this.context.stderr.write(`${describeUser(user)} has ${holdings || 'no sessions and no API tokens'}.\n`);
    const typed = await askLine(
      this.context,
      `Delete ${user.email} and everything of theirs? Type the email to confirm: `,
    );
    // Compared as stored (trimmed, lower-cased): the confirmation is about which user, not about case.
    if (normalizeEmail(typed) !== user.email) {
      throw new CliFailure(`The email typed is not ${user.email}; nothing was changed`);
    }
  }
}

/**
 * What goes with the user that an operator cares to count, read before the deletion (`users.delete`
 * returns only the user): `2 sessions and 1 API token`, or '' for none. Reset and confirmation
 * links go too, uncounted.
 */
async function credentialsOf(auth: AuthParts, user: AuthUser): Promise<string> {
  const [sessions, tokens] = await Promise.all([auth.sessions.list(user.id), auth.tokens.list({ user: user.id })]);
  const counts = [counted(sessions.length, 'session'), counted(tokens.length, 'API token')].filter(
    (text) => text !== '',
  );
  return counts.join(' and ');
}

function counted(count: number, noun: string): string {
  return count === 0 ? '' : `${count} ${noun}${count === 1 ? '' : 's'}`;
}
