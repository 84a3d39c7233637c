/**
 * `/api/tokens` for API clients: create (a session only), list and revoke the caller's own
 * tokens. With a bearer token, scopes bind here too, as on the pages (actions/tokens.ts).
 */
import { Router, type Request, type RequestHandler, type Response } from 'express';
import type { z } from 'zod';
import type { NewToken, TokenService } from '../../tokens/service.js';
import { assertMayRevoke, assertSession, ownTokens } from '../actions/tokens.js';
import { parseBody } from '../schemas/parse.js';

export interface TokensApiDeps {
  tokens: TokenService;
  loginRequired: RequestHandler;
  /** Creating a token's rate limit, per user (none when limits are off). */
  limit: RequestHandler[];
  /** `POST /api/tokens`'s body as JSON. */
  newToken: z.ZodType<NewToken>;
}

export function tokensApi({ tokens, loginRequired, limit, newToken }: TokensApiDeps): Router {
  const api = Router();

  api.post('/', loginRequired, ...limit, async (req, res) => {
    assertSession(req);
    const created = await tokens.create(req.user!.id, parseBody(newToken, req));
    res.status(201).json(created);
  });

  api.get('/', loginRequired, async (req, res) => {
    res.json({ tokens: await ownTokens(tokens, req) });
  });

  const revoke = async (req: Request, res: Response): Promise<void> => {
    const id = String(req.params['id']);
    assertMayRevoke(req, id);
    await tokens.revoke(id, req.user!.id);
    res.status(204).end();
  };
  api.delete('/:id', loginRequired, revoke);
  // What the revoke confirmation page's form posts to (HTML forms cannot send DELETE), for API clients too.
  api.post('/:id/revoke', loginRequired, revoke);

  return api;
}
