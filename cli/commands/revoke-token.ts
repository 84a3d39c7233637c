import { Command, Option } from 'clipanion';
import { AuthError } from '../../src/errors.js';
import { CliFailure } from './failures.js';
import { ServiceAuthCommand } from './base.js';

export class RevokeTokenCommand extends ServiceAuthCommand {
  static override paths = [['auth', 'revoke-token']];

  static override usage = Command.Usage({
    category: 'Tokens',
    description: 'Revoke a token',
    details: `
      Revokes the token with this id (the \`<id>\` part of the token, as \`list-tokens\` shows it). Running
      servers that share the database refuse it within a second.
    `,
    examples: [['Revoke a token', '$0 auth revoke-token Xk3dP0aQ7mB2rT9w']],
  });

  id = Option.String({ name: 'id' });

  protected override async run(): Promise<void> {
    const auth = await this.auth();
    try {
      await auth.tokens.revoke(this.id);
    } catch (error) {
      if (error instanceof AuthError && error.code === 'not_found') {
        throw new CliFailure(`Unknown token id: no token that is not revoked has the id ${JSON.stringify(this.id)}`);
      }
      throw error;
    }
    this.print(`Revoked token ${this.id}`);
  }
}
