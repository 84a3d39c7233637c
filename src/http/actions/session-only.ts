import type { Request } from 'express';
import { AuthError } from '../../errors.js';

/**
 * What only a logged-in session may do (a token is refused with 403 `session_required`): mint
 * tokens, which would otherwise outlive a leaked token's revocation; and manage the account
 * itself (its password, address, sessions, existence), which a script's token has no business in.
 */
export function assertSession(req: Request, detail = 'This needs a logged-in session, not a token'): void {
  if (req.authMethod !== 'session') throw new AuthError('session_required', detail);
}
