/**
 * What the token routes of the pages and of the JSON API both need, and the one check of what a
 * restricted token may do on the package's own routes (docs/tokens.md):
 * with a bearer token, seeing the account's tokens or its security log needs a token of the
 * whole account, made without scopes and without an organization; a token with scopes, or bound
 * to an organization, may revoke only itself. Such a token holds a part of what its user may do,
 * and a part must not see or end the tokens that hold the rest. Sessions are not limited by scopes.
 */
import type { Request } from 'express';
import { AuthError, BEARER_CHALLENGE } from '../../errors.js';
import type { TokenService, TokenView } from '../../tokens/service.js';
import { assertSession as assertSessionOnly } from './session-only.js';

/** The caller's tokens as listed: never a hash, never the raw value, never the owner's email. */
export async function ownTokens(tokens: TokenService, req: Request): Promise<TokenView[]> {
  assertWholeAccount(req, 'Listing tokens needs a session, or a token made without scopes and without an organization');
  return viewsOf(tokens, req);
}

/** One of the caller's tokens, to confirm its revoking (a token with scopes: only itself). */
export async function ownToken(tokens: TokenService, req: Request, id: string): Promise<TokenView | undefined> {
  assertMayRevoke(req, id);
  return (await viewsOf(tokens, req)).find((token) => token.id === id);
}

async function viewsOf(tokens: TokenService, req: Request): Promise<TokenView[]> {
  return (await tokens.list({ user: req.user!.id })).map(({ email: _email, ...view }) => view);
}

/** A token must not mint tokens: a leaked one would otherwise outlive its own revocation. */
export function assertSession(req: Request): void {
  assertSessionOnly(req, 'Create tokens from a logged-in session, not with a token');
}

/** A session, or a token that carries every scope (a bound one too): 403 `insufficient_scope` otherwise. */
export function assertEveryScope(req: Request, detail: string): void {
  if (isScopedToken(req)) throw insufficientScope(detail);
}

/** A session, or a token of the whole account (no scopes, no organization): 403 `insufficient_scope` otherwise. */
export function assertWholeAccount(req: Request, detail: string): void {
  if (isScopedToken(req) || isBoundToken(req)) throw insufficientScope(detail);
}

/** Whether the caller may revoke (or be shown the revoking of) the token `id`. */
export function assertMayRevoke(req: Request, id: string): void {
  if (req.token?.id === id || !(isScopedToken(req) || isBoundToken(req))) return;
  throw insufficientScope(
    isScopedToken(req)
      ? 'A token with scopes may revoke only itself'
      : 'A token bound to an organization may revoke only itself',
  );
}

function isScopedToken(req: Request): boolean {
  return req.authMethod === 'token' && (req.token?.scopes.length ?? 0) > 0;
}

function isBoundToken(req: Request): boolean {
  return req.authMethod === 'token' && req.token?.org != null;
}

function insufficientScope(detail: string): AuthError {
  return new AuthError('insufficient_scope', detail, undefined, {
    'WWW-Authenticate': `${BEARER_CHALLENGE}, error="insufficient_scope"`,
  });
}
