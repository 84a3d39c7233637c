import { Command, Option } from 'clipanion';
import { formatTable, tableTime } from './table.js';
import { ServiceAuthCommand } from './base.js';

export class ListTokensCommand extends ServiceAuthCommand {
  static override paths = [['auth', 'list-tokens']];

  static override usage = Command.Usage({
    category: 'Tokens',
    description: 'List the tokens, without secrets',
    details: `
      Prints a table of the tokens, oldest first: ID, Email (the owner), Name, Scopes, Created, Last used,
      Expires, Legacy. No hash and no raw value is ever shown. \`Last used\` may lag behind by up to a minute.

      \`--email\` shows one user's tokens; \`--legacy\` only the legacy ones (unsalted SHA-256, to be
      regenerated). With \`--json\`, prints a JSON array of the objects \`GET /api/tokens\` returns, each with its
      owner's \`email\` added.
    `,
    examples: [
      ['Every token', '$0 auth list-tokens'],
      ["One user's tokens as JSON", '$0 auth list-tokens --email ada@example.com --json'],
      [
        'Who still has legacy tokens to regenerate',
        "$0 auth list-tokens --legacy --json | jq -r '.[].email' | sort -u",
      ],
    ],
  });

  email = Option.String('--email', { description: "Only this user's tokens" });
  legacy = Option.Boolean('--legacy', false, { description: 'Only legacy tokens' });
  json = Option.Boolean('--json', false, { description: 'Print a JSON array instead of a table' });

  protected override async run(): Promise<void> {
    const auth = await this.auth();
    const owner = this.email === undefined ? undefined : (await this.existingUser(auth, this.email)).id;
    const tokens = await auth.tokens.list({ user: owner, legacy: this.legacy });
    if (this.json) {
      this.print(JSON.stringify(tokens, null, 2));
    } else if (tokens.length === 0) {
      this.print('No tokens.');
    } else {
      const rows = tokens.map((token) => [
        token.id,
        token.email,
        token.name,
        token.scopes.length ? token.scopes.join(' ') : 'all',
        tableTime(token.created_at),
        token.last_used_at ? tableTime(token.last_used_at) : 'never',
        token.expires_at ? tableTime(token.expires_at) : 'never',
        token.legacy ? 'yes' : 'no',
      ]);
      this.print(formatTable(['ID', 'Email', 'Name', 'Scopes', 'Created', 'Last used', 'Expires', 'Legacy'], rows));
    }
  }
}
