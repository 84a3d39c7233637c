/** What the token routes of the pages and of the JSON API both need. */
import type { Request } from 'express';
import type { TokenService, TokenView } from '../../tokens/service.js';
import { assertSession as assertSessionOnly } from './session-only.js';

/** The caller's tokens as listed: never a hash, never the raw value, never the owner's email. */
export async function ownTokens(tokens: TokenService, req: Request): Promise<TokenView[]> {
  return (await tokens.list({ user: req.user!.id })).map(({ email: _email, ...view }) => view);
}

/** A token must not mint tokens: a leaked one would otherwise outlive its own revocation. */
export function assertSession(req: Request): void {
  assertSessionOnly(req, 'Create tokens from a logged-in session, not with a token');
}
