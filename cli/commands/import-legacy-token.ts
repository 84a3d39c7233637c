import { Command, Option } from 'clipanion';
import { required } from './option-rules.js';
import { tokenFieldsAsOptions } from './token-options.js';
import { ServiceAuthCommand } from './base.js';

export class ImportLegacyTokenCommand extends ServiceAuthCommand {
  static override paths = [['auth', 'import-legacy-token']];

  static override usage = Command.Usage({
    category: 'Tokens',
    description: 'Import a legacy token by its SHA-256',
    details: `
      Brings in a token the application issued before tokens were stored with PBKDF2: give its hex SHA-256, as
      the old table kept it (never the raw token). The token stays valid as it is, lists with \`legacy: true\`,
      carries every scope and does not expire; its owner should regenerate it. Prints the id it was given.
    `,
    examples: [
      [
        'Import one hash from the old table',
        '$0 auth import-legacy-token --email ada@example.com --sha256 ' +
          '9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08 --name "old deploy ' +
          'script"',
      ],
    ],
  });

  email = Option.String('--email', { description: "The owner's email" });
  sha256 = Option.String('--sha256', { description: 'The hex SHA-256 of the raw token (64 characters)' });
  name = Option.String('--name', { description: 'What the token is for (1 to 100 characters)' });

  static override schema = [required('email', '--email'), required('sha256', '--sha256'), required('name', '--name')];

  protected override async run(): Promise<void> {
    const auth = await this.auth();
    const user = await this.existingUser(auth, this.email!);
    const imported = await tokenFieldsAsOptions(() =>
      auth.tokens.importLegacy(user.id, { sha256: this.sha256!, name: this.name! }),
    );
    this.print(imported.id);
  }
}
