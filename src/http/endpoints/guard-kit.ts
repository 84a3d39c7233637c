/** What the guards' middleware is made of: the package's guards, and the endpoints' checks. */
import type { Request, RequestHandler } from 'express';
import type { Credentials } from '../../authentication/credentials.js';
import type { AuthError } from '../../errors.js';
import type { EndpointChecks } from '../actions/checks.js';

export interface GuardKit {
  /** The guards the router was given (`auth.loginRequired`, …), as http/router.ts has them. */
  guards: {
    readonly loginRequired: RequestHandler;
    readonly abilityReady: RequestHandler;
    orgRequired(param?: string): RequestHandler;
    /** A guard of one's own: the same credentials and refusals, and a check of its own (the console's gate). */
    guard(check: (req: Request, credentials: Credentials) => AuthError | undefined): RequestHandler;
  };
  /** Rate limits and the same-site check of the endpoints that have them (actions/checks.ts). */
  checks: EndpointChecks;
}
