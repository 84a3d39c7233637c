/**
 * Who a request is: resolved lazily, only where a guard, an endpoint or `auth.currentUser` asks,
 * and once per request however many ask.
 */
import type { Request } from 'express';
import type { RequestToken } from '../express-request.js';
import type { SessionCookie } from '../sessions/cookie.js';
import type { SessionStore } from '../sessions/store.js';
import type { AuthUser } from '../users/auth-user.js';
import type { UserCache } from '../users/user-cache.js';

export type AuthMethod = 'session' | 'token';

export interface Credentials {
  user: AuthUser;
  method: AuthMethod;
  /** The raw session id, for a session (logout ends it; login replaces it). */
  sessionId?: string;
  /** The token, for a bearer token. */
  token?: RequestToken;
}

export class CredentialResolver {
  private readonly resolved = new WeakMap<Request, Promise<Credentials | null>>();

  constructor(
    private readonly cookie: SessionCookie,
    private readonly sessions: SessionStore,
    private readonly users: UserCache,
  ) {}

  resolve(req: Request): Promise<Credentials | null> {
    let credentials = this.resolved.get(req);
    if (!credentials) {
      credentials = this.fromSession(req);
      this.resolved.set(req, credentials);
    }
    return credentials;
  }

  /** Forgets what was resolved, after the request's credentials changed (login, logout). */
  forget(req: Request): void {
    this.resolved.delete(req);
  }

  private async fromSession(req: Request): Promise<Credentials | null> {
    const sessionId = this.cookie.read(req);
    if (!sessionId) return null;
    const session = await this.sessions.find(sessionId);
    if (!session) return null;
    const user = await this.users.get(session.userId);
    return user ? { user, method: 'session', sessionId } : null;
  }
}
