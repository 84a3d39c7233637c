import type { Request, RequestHandler, Response } from 'express';
import { AuthError } from '../errors.js';
import { clientKey } from './client-key.js';
import type { Limiter, LimitState } from './limiter.js';

/** The IETF RateLimit-* fields, on every counted response, refusals included. */
export function setRateLimitHeaders(res: Response, state: LimitState): void {
  res.setHeader('RateLimit-Limit', String(state.limit));
  res.setHeader('RateLimit-Remaining', String(state.remaining));
  res.setHeader('RateLimit-Reset', String(state.resetSeconds));
}

/** The IETF RateLimit-* fields of a count, as headers. */
export function rateLimitHeaders(state: LimitState): Record<string, string> {
  return {
    'RateLimit-Limit': String(state.limit),
    'RateLimit-Remaining': String(state.remaining),
    'RateLimit-Reset': String(state.resetSeconds),
  };
}

/**
 * A 429 that carries the fields of the limit that refused, so that a refusal by the per-account
 * failure limit does not show the per-client limit's numbers.
 */
export function rateLimited(state: LimitState, what: string): AuthError {
  return new AuthError('rate_limited', `Too many ${what}; try again in ${state.resetSeconds} seconds`, undefined, {
    ...rateLimitHeaders(state),
    'Retry-After': String(state.resetSeconds),
  });
}

/** Counts the request against its client; a refused request goes no further than here. */
export function limitPerClient(limiter: Limiter, what: string): RequestHandler {
  return limitBy(clientKey, limiter, what);
}

/** Counts the request against its signed-in user (after the guard), wherever they send it from. */
export function limitPerUser(limiter: Limiter, what: string): RequestHandler {
  return limitBy((req) => `user:${req.user!.id}`, limiter, what);
}

/**
 * Not an async function, and the promise is not returned: once an AsyncLocalStorage is in use
 * (MikroORM's request context is), every promise created costs async-hook bookkeeping, and an
 * async middleware creates two more than this (its own result, and the one Express's router
 * chains on a returned promise to catch its rejection). On a route whose limit is never reached
 * the limiter is pure overhead; `npm run bench` measures it.
 */
function limitBy(keyOf: (req: Request) => string, limiter: Limiter, what: string): RequestHandler {
  return (req, res, next) => {
    limiter.consume(keyOf(req)).then((state) => {
      try {
        setRateLimitHeaders(res, state);
      } catch (error) {
        next(error); // headers already sent by something else: Express's error path decides
        return;
      }
      if (state.allowed) next();
      else next(rateLimited(state, what));
    }, next);
  };
}
