/**
 * The checks each account endpoint makes before it acts, whichever router (pages or JSON) takes
 * the request: its rate limit, counted once per request, and the same-site rule. Login and
 * register need it without a cookie (login CSRF); forgot, reset and the confirmation links so
 * that another site cannot send mail or use a link in a visitor's name. The endpoints that need a
 * session get the same-site rule from their guard; of those, creating a token or an organization
 * is limited per user.
 */
import type { RequestHandler } from 'express';
import type { Limiter } from '../../rate-limit/limiter.js';
import { limitPerClient, limitPerUser } from '../../rate-limit/middleware.js';
import { assertSameSite } from '../../sessions/csrf.js';
import { assertSession } from './tokens.js';

export interface EndpointLimiters {
  login: Limiter;
  register: Limiter;
  forgotPassword: Limiter;
  resetPassword: Limiter;
  /** Confirmation links used (`/confirm`, `/confirm-email`): at the rate of resets. */
  confirm: Limiter;
  /** Mails asked for (`/confirm/resend`, `/email`): at the rate of reset requests. */
  confirmationMail: Limiter;
  /** Tokens created, per user: each costs a key derivation. */
  tokenCreation: Limiter;
  /** Organizations created, per user: their names go into invitation mail. */
  orgCreation: Limiter;
}

export type AccountEndpoint = 'login' | 'register' | 'forgot' | 'reset';

export type CheckedEndpoint =
  AccountEndpoint | 'confirm' | 'resend' | 'email' | 'createToken' | 'createOrg' | 'invite' | 'acceptInvitation';

export type EndpointChecks = Record<CheckedEndpoint, RequestHandler[]>;

/** `limiters` is absent when SERVICE_AUTH_RATE_LIMIT_ENABLED is false. */
export function endpointChecks(limiters: EndpointLimiters | undefined, publicOrigin: string): EndpointChecks {
  const sameSite: RequestHandler = (req, _res, next) => {
    assertSameSite(req, publicOrigin);
    next();
  };
  const limit = (limiter: keyof EndpointLimiters, what: string): RequestHandler[] =>
    limiters ? [limitPerClient(limiters[limiter], what)] : [];
  // After the guard, per account wherever it is used from. Only a session may create tokens: a
  // token's request is refused before it counts, so that a leaked token cannot use up its user's.
  const sessionOnly: RequestHandler = (req, _res, next) => {
    assertSession(req);
    next();
  };
  return {
    login: [...limit('login', 'login attempts from this address'), sameSite],
    register: [...limit('register', 'registrations from this address'), sameSite],
    forgot: [...limit('forgotPassword', 'password reset requests from this address'), sameSite],
    reset: [...limit('resetPassword', 'password resets from this address'), sameSite],
    confirm: [...limit('confirm', 'confirmations from this address'), sameSite],
    resend: [...limit('confirmationMail', 'confirmation mails asked for from this address'), sameSite],
    email: limit('confirmationMail', 'confirmation mails asked for from this address'),
    createToken: limiters ? [sessionOnly, limitPerUser(limiters.tokenCreation, 'tokens created by this account')] : [],
    // After the guard, per account: a flood of organizations would carry their names into
    // invitation mail (a spam amplifier), and fill the table.
    createOrg: limiters ? [limitPerUser(limiters.orgCreation, 'organizations created by this account')] : [],
    // After the guards (a member who may invite): each invitation mails someone.
    invite: limit('confirmationMail', 'mails asked for from this address'),
    acceptInvitation: limit('confirm', 'links used from this address'),
  };
}
