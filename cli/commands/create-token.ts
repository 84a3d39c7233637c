import { Command, Option } from 'clipanion';
import * as t from 'typanion';
import { required } from './option-rules.js';
import { tokenFieldsAsOptions } from './token-options.js';
import { ServiceAuthCommand } from './base.js';

export class CreateTokenCommand extends ServiceAuthCommand {
  static override paths = [['auth', 'create-token']];

  static override usage = Command.Usage({
    category: 'Tokens',
    description: 'Create a token for a user',
    details: `
      Creates a token owned by the user with this email and prints the raw token, alone, on stdout: it is
      shown this once and never stored (only its PBKDF2 hash is). Capture it straight into where it is needed.

      \`--expires-in-days\` defaults to \`SERVICE_AUTH_TOKEN_DEFAULT_EXPIRY_DAYS\` and may be at most
      \`SERVICE_AUTH_TOKEN_MAX_EXPIRY_DAYS\`. Without \`--scope\` the token carries every scope. \`--org\` (a slug
      or id) binds it to an organization the user is a member of: refused in any other, and with the user's global
      roles only outside every organization. The per-user cap (\`SERVICE_AUTH_MAX_TOKENS_PER_USER\`) applies.
    `,
    examples: [
      [
        'A token for a deploy script, valid 30 days',
        '$0 auth create-token --email ci@example.com --name deploy --expires-in-days 30',
      ],
      [
        'A read-only token, into a file',
        '$0 auth create-token --email ada@example.com --name reports --scope reports:read > reports.token',
      ],
    ],
  });

  email = Option.String('--email', { description: "The owner's email" });
  name = Option.String('--name', { description: 'What the token is for (1 to 100 characters)' });
  expiresInDays = Option.String('--expires-in-days', { description: 'Days until it expires', validator: t.isNumber() });
  org = Option.String('--org', { description: 'An organization of the user (slug or id) to bind the token to' });
  scopes = Option.Array('--scope', {
    description: 'A scope the token carries ([a-z0-9:._-]{1,64}); repeat for several; none means all',
  });

  static override schema = [required('email', '--email'), required('name', '--name')];

  protected override async run(): Promise<void> {
    const auth = await this.auth();
    const user = await this.existingUser(auth, this.email!);
    const created = await tokenFieldsAsOptions(() =>
      auth.tokens.create(user.id, {
        name: this.name!,
        expiresInDays: this.expiresInDays,
        scopes: this.scopes ?? [],
        org: this.org,
      }),
    );
    this.print(created.token);
  }
}
