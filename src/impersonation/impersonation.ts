/**
 * Acting as another user (docs/impersonation.md): support staff see and do what the user would,
 * for a while, and every record says who really acted.
 *
 * - Only from a logged-in session (a token never impersonates: a script has no screen to look at,
 *   and a token would outlive the person's decision to stop), never from within an impersonation.
 * - The actor's ability must allow `impersonate` on `subject('User', target)`; a global admin
 *   (`is_admin`) is never a target, whatever the rules say, so nobody gains an admin's power by it.
 * - It ends after SERVICE_AUTH_IMPERSONATION_TTL seconds, at a stop, or with the impersonator's own
 *   session; then the browser has the impersonator's own session again, under a new secret.
 *
 * The console's "Impersonate" button and the JSON API call `start` and `stop`; the credential
 * resolver calls `credentials` for every request that comes with an impersonation's cookie.
 */
import { subject } from '@casl/ability';
import type { Request, Response } from 'express';
import { noteImpersonator } from '../audit/context.js';
import type { CredentialResolver, Credentials, ImpersonatedSessions } from '../authentication/credentials.js';
import type { AbilityFactory } from '../authorization/abilities.js';
import { AuthError, LoginRequired } from '../errors.js';
import type { SessionCookie } from '../sessions/cookie.js';
import type { ImpersonationSessions, IssuedSession, SessionImpersonation } from '../sessions/impersonation-sessions.js';
import type { ActiveSession, SessionStore } from '../sessions/store.js';
import type { AuthUser } from '../users/auth-user.js';
import type { UserService } from '../users/service.js';

export interface ImpersonationDeps {
  /** SERVICE_AUTH_IMPERSONATION_TTL. */
  ttlSeconds: number;
  sessions: SessionStore;
  impersonations: ImpersonationSessions;
  cookie: SessionCookie;
  credentials: CredentialResolver;
  users: Pick<UserService, 'findById' | 'cached'>;
  abilities: Pick<AbilityFactory, 'abilityFor'>;
}

/** Who the browser acts as, and who really acts. */
export interface ImpersonationStarted {
  user: AuthUser;
  impersonator: AuthUser;
}

export class Impersonation implements ImpersonatedSessions {
  /** The clock impersonations end by, in milliseconds. Internal: the package's tests move it instead of waiting. */
  now: () => number = () => Date.now();

  constructor(private readonly deps: ImpersonationDeps) {}

  /**
   * Makes the request's browser act as the user with this id: sets the new session's cookie on
   * `res`. Throws (for the error middleware) 401 `unauthenticated`, 403 `session_required` (a
   * token), `impersonation_forbidden` (already acting as someone), `forbidden` (no right to, an
   * admin, a disabled account, oneself), 404 `not_found` (no such user, for those who may impersonate).
   */
  async start(req: Request, res: Response, targetUserId: number): Promise<ImpersonationStarted> {
    const { credentials, users, abilities, impersonations, cookie, ttlSeconds } = this.deps;
    const found = await credentials.resolve(req);
    if (!found) throw new LoginRequired();
    if (found.method !== 'session' || !found.sessionId)
      throw new AuthError('session_required', 'Act as another user from a logged-in session, not with a token');
    if (found.impersonator)
      throw new AuthError('impersonation_forbidden', 'Stop acting as this user before acting as another');
    const actor = found.user;
    const ability = abilities.abilityFor(actor);
    // Before any lookup: someone who may impersonate nobody learns nothing of which ids exist.
    if (!ability.can('impersonate', 'User')) throw new AuthError('forbidden', 'You may not act as other users');
    const target = await users.findById(targetUserId);
    if (!target) throw new AuthError('not_found', 'There is no user with this id');
    if (target.id === actor.id) throw new AuthError('forbidden', 'You cannot act as yourself');
    if (target.is_admin) throw new AuthError('forbidden', 'A global admin is never impersonated');
    if (!ability.can('impersonate', subject('User', target.toJSON())))
      throw new AuthError('forbidden', 'You may not act as this user');
    if (target.disabled) throw new AuthError('forbidden', 'A disabled account cannot be acted as');
    const issued = await impersonations.start({
      fromSession: found.sessionId,
      impersonatorId: actor.id,
      targetId: target.id,
      endsAt: new Date(this.now() + ttlSeconds * 1000),
      userAgent: req.get('user-agent'),
      record: { type: 'impersonation_started', userId: target.id, detail: { impersonator: actor.id } },
    });
    if (!issued) throw new LoginRequired('Your session has ended; log in again');
    cookie.set(res, issued.id, issued.expiresAt);
    credentials.forget(req);
    return { user: target, impersonator: actor };
  }

  /**
   * Ends the request's impersonation: the browser gets the impersonator's own session back (a new
   * cookie on `res`), and the impersonator is returned. 404 `not_found` when it is not acting as
   * anyone; 401 when the impersonator's own session has ended meanwhile.
   */
  async stop(req: Request, res: Response): Promise<AuthUser> {
    const { credentials, sessions, cookie } = this.deps;
    const found = await credentials.resolve(req);
    if (!found) throw new LoginRequired();
    const raw = cookie.read(req);
    const session = found.impersonator && raw ? await sessions.find(raw) : null;
    if (!found.impersonator || !session?.impersonation)
      throw new AuthError('not_found', 'You are not acting as another user');
    const restored = await this.end(session as ImpersonatedSession, 'stopped');
    credentials.forget(req);
    if (!restored) {
      cookie.clear(res);
      throw new LoginRequired('Your own session has ended; log in again');
    }
    cookie.set(res, restored.id, restored.expiresAt);
    return found.impersonator;
  }

  /**
   * The credentials of a request with an impersonation's cookie: the target's, naming the
   * impersonator (in the request's audit context too), until the time is up; then the
   * impersonator's own, with the cookie set on the request's response. An impersonator who is
   * gone or disabled makes it no session.
   */
  async credentials(req: Request, session: ActiveSession): Promise<Credentials | null> {
    const { users, cookie } = this.deps;
    const impersonation = session.impersonation!;
    const impersonator = await users.cached(impersonation.impersonatorId);
    if (!impersonator || impersonator.disabled) return null;
    const target = await users.cached(session.userId);
    if (target && !target.disabled && this.now() < impersonation.endsAt.getTime()) {
      noteImpersonator(impersonator.id);
      return { user: target, impersonator, method: 'session', sessionId: session.publicId };
    }
    const restored = await this.end(
      session as ImpersonatedSession,
      this.now() < impersonation.endsAt.getTime() ? 'target_unavailable' : 'expired',
    );
    if (!restored) return null;
    if (req.res && !req.res.headersSent) cookie.set(req.res, restored.id, restored.expiresAt);
    return { user: impersonator, method: 'session', sessionId: restored.publicId };
  }

  private end(session: ImpersonatedSession, reason: string): Promise<IssuedSession | null> {
    const { impersonatorId } = session.impersonation;
    return this.deps.impersonations.end(session, {
      type: 'impersonation_ended',
      userId: session.userId,
      detail: { impersonator: impersonatorId, ended: reason },
    });
  }
}

type ImpersonatedSession = ActiveSession & { impersonation: SessionImpersonation };
