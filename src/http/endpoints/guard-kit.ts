/** What the guards' middleware is made of: the package's guards, and the endpoints' checks. */
import type { RequestHandler } from 'express';
import type { EndpointChecks } from '../actions/checks.js';
import type { AuthRouterDeps } from '../router.js';

export interface GuardKit {
  guards: AuthRouterDeps['guards'];
  /** Rate limits and the same-site check of the endpoints that have them (actions/checks.ts). */
  checks: EndpointChecks;
}

export type { RequestHandler };
