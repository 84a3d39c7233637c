import type { RequestHandler, Response } from 'express';
import { AuthError } from '../errors.js';
import { clientKey } from './client-key.js';
import type { Limiter, LimitState } from './limiter.js';

/** The IETF RateLimit-* fields, on every counted response, refusals included. */
export function setRateLimitHeaders(res: Response, state: LimitState): void {
  res.setHeader('RateLimit-Limit', String(state.limit));
  res.setHeader('RateLimit-Remaining', String(state.remaining));
  res.setHeader('RateLimit-Reset', String(state.resetSeconds));
}

export function rateLimited(state: LimitState, what: string): AuthError {
  return new AuthError('rate_limited', `Too many ${what}; try again in ${state.resetSeconds} seconds`, undefined, {
    'Retry-After': String(state.resetSeconds),
  });
}

/** Counts the request against its client; a refused request goes no further than here. */
export function limitPerClient(limiter: Limiter, what: string): RequestHandler {
  return async (req, res, next) => {
    const state = await limiter.consume(clientKey(req));
    setRateLimitHeaders(res, state);
    if (!state.allowed) throw rateLimited(state, what);
    next();
  };
}
