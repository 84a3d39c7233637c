/**
 * Who a request is: resolved lazily, only where a guard, an endpoint or `auth.currentUser` asks,
 * and once per request however many ask. A bearer token, when the request carries one, decides
 * alone: an invalid token is refused even if a session cookie came along.
 *
 * Guards sit on every guarded request, so the common case (a session or token seen in the last
 * half second) is answered synchronously from memory: no promise, no query. Anything else takes
 * the asynchronous path, which waits for storage to be ready first.
 */
import type { Request } from 'express';
import { invalidToken } from '../errors.js';
import type { RequestToken } from '../express-request.js';
import { clientKey } from '../rate-limit/client-key.js';
import type { Limiter } from '../rate-limit/limiter.js';
import { rateLimited } from '../rate-limit/middleware.js';
import type { SessionCookie } from '../sessions/cookie.js';
import { isCrossSite, isUnsafeMethod } from '../sessions/csrf.js';
import type { ActiveSession, SessionStore } from '../sessions/store.js';
import type { TokenRecord, TokenVerifier } from '../tokens/verifier.js';
import type { AuthUser } from '../users/auth-user.js';
import type { UserService } from '../users/service.js';

export type AuthMethod = 'session' | 'token';

export interface Credentials {
  user: AuthUser;
  method: AuthMethod;
  /** The token, for a bearer token. */
  token?: RequestToken;
  /** The session's public id, for a session. */
  sessionId?: string;
  /** The user really acting, when `user` is being impersonated (src/impersonation/). */
  impersonator?: AuthUser;
}

/**
 * The credentials of a session of impersonation, decided by src/impersonation/: the target's while
 * it lasts, the impersonator's own (with a new cookie) once its time is up, or none.
 */
export interface ImpersonatedSessions {
  credentials(req: Request, session: ActiveSession): Promise<Credentials | null>;
}

/** Credentials now, or once the lookups that memory could not answer are done. */
export type MaybeCredentials = Credentials | null | Promise<Credentials | null>;

export interface CredentialSources {
  cookie: SessionCookie;
  sessions: SessionStore;
  users: UserService;
  verifier: TokenVerifier;
  /** Failed bearer attempts per client; absent when rate limiting is off. */
  tokenFailures: Limiter | undefined;
  /** The origin of SERVICE_AUTH_PUBLIC_URL, for the same-site check. */
  publicOrigin: string;
  impersonation: ImpersonatedSessions;
  whenReady(): Promise<void>;
  /** Told when a request's credentials changed (`forget`), for whatever holds them for the request's later guards. */
  forgotten?: (req: Request) => void;
}

const BEARER = /^Bearer +([^\s]+) *$/i;

/**
 * What the request presents as a token, read from its headers in this one place: a bearer token's
 * secret, `'malformed'` for an `Authorization: Bearer` header without a well-formed token (refused
 * with 401 wherever credentials are asked for), or null. Any other `Authorization` header (Basic
 * from a proxy in front of a staging site, `Token …`, a bare word) is not ours and is ignored: the
 * request is then whatever its session cookie makes it, impersonation and its limits included.
 * Only the header carries a token: never the query string, where it would end up in logs,
 * histories and Referer headers. (Node keeps only the first of repeated `Authorization` headers.)
 */
export function presentedToken(req: Request): string | 'malformed' | null {
  const header = req.headers.authorization;
  if (!header || !/^bearer\b/i.test(header)) return null;
  return BEARER.exec(header)?.[1] ?? 'malformed';
}

export class CredentialResolver {
  private readonly resolved = new WeakMap<Request, Promise<Credentials | null>>();

  constructor(private readonly sources: CredentialSources) {}

  /** The request's credentials, as a promise (for endpoints). */
  async resolve(req: Request): Promise<Credentials | null> {
    return this.lookup(req);
  }

  /**
   * The credentials a guard would accept, or null (for `auth.currentUser`): besides what
   * `resolve` refuses, a session cookie on an unsafe request from another site counts as nobody.
   */
  async acceptable(req: Request): Promise<Credentials | null> {
    const credentials = await this.lookup(req);
    if (credentials?.method === 'session' && isUnsafeMethod(req.method) && isCrossSite(req, this.sources.publicOrigin))
      return null;
    return credentials;
  }

  /** The request's credentials, synchronously when memory can tell (for guards). May throw an AuthError. */
  lookup(req: Request): MaybeCredentials {
    const pending = this.resolved.get(req);
    if (pending) return pending;
    let credentials: MaybeCredentials;
    try {
      credentials = this.lookupNow(req);
    } catch (error) {
      credentials = Promise.reject(error);
    }
    // Only lookups that had to wait are remembered for the request's other guards: one answered
    // from memory costs less to repeat than a WeakMap entry costs the garbage collector.
    if (credentials instanceof Promise) this.resolved.set(req, credentials);
    return credentials;
  }

  /** Forgets what was resolved, after the request's credentials changed (login, logout). */
  forget(req: Request): void {
    this.resolved.delete(req);
    this.sources.forgotten?.(req);
  }

  private lookupNow(req: Request): MaybeCredentials {
    const token = presentedToken(req);
    if (token === 'malformed') throw invalidToken();
    return token === null ? this.fromSession(req) : this.fromBearer(req, token);
  }

  private fromSession(req: Request): MaybeCredentials {
    const sessionId = this.sources.cookie.read(req);
    if (!sessionId) return null;
    const session = this.sources.sessions.find(sessionId);
    if (session instanceof Promise) return this.afterReady(session.then((found) => this.sessionUser(req, found)));
    return this.sessionUser(req, session);
  }

  /** A disabled user's session counts as none. */
  private sessionUser(req: Request, session: ActiveSession | null): MaybeCredentials {
    if (!session) return null;
    if (session.impersonation) return this.afterReady(this.sources.impersonation.credentials(req, session));
    const user = this.sources.users.peekCached(session.userId);
    if (user) return user.disabled ? null : { user, method: 'session', sessionId: session.publicId };
    return this.afterReady(
      this.sources.users
        .cached(session.userId)
        .then((found) =>
          found && !found.disabled ? { user: found, method: 'session', sessionId: session.publicId } : null,
        ),
    );
  }

  private fromBearer(req: Request, raw: string): MaybeCredentials {
    const { verifier, tokenFailures } = this.sources;
    const known = verifier.check(raw);
    if (known !== undefined) return this.tokenUser(req, known, false);
    // Not decidable from memory. Before a slow derivation the attempt is counted against the
    // client's failure limit (and given back if the token is good), so that attempts sent at once
    // cannot all be derived; a known-good token never waits on the limiter.
    // The derivation waits its turn by the client's record of failed ones (DerivationPool), so a
    // flood of forgeries from other addresses cannot starve a real token.
    const client = clientKey(req);
    let counted = false;
    const mayDerive = tokenFailures
      ? async () => {
          counted = true;
          const state = await tokenFailures.consume(client);
          if (!state.allowed) throw rateLimited(state, 'failed token attempts from this address');
        }
      : undefined;
    const verified = verifier.verify(raw, mayDerive, client).then(async (record) => {
      if (record && counted) await tokenFailures!.refund(client);
      return this.tokenUser(req, record, counted);
    });
    return this.afterReady(verified);
  }

  /**
   * A disabled user's token is refused like a revoked one, and counted as a failed attempt (a
   * valid token's attempt was given back before this).
   */
  private tokenUser(req: Request, record: TokenRecord | null, counted: boolean): MaybeCredentials {
    if (!record) return this.failedToken(req, counted);
    const user = this.sources.users.peekCached(record.userId);
    if (user) return user.disabled ? this.failedToken(req, false) : tokenCredentials(user, record);
    return this.afterReady(
      this.sources.users
        .cached(record.userId)
        .then((found) => (found && !found.disabled ? tokenCredentials(found, record) : this.failedToken(req, false))),
    );
  }

  /** A refused token, counted against the client unless it was counted before its derivation. */
  private async failedToken(req: Request, counted: boolean): Promise<never> {
    const { tokenFailures } = this.sources;
    if (tokenFailures && !counted) {
      const state = await tokenFailures.consume(clientKey(req));
      if (!state.allowed) throw rateLimited(state, 'failed token attempts from this address');
    }
    throw invalidToken();
  }

  /** What needed storage is answered once `ready` settled (a failed start is a 503). */
  private async afterReady<T>(pending: Promise<T>): Promise<T> {
    pending.catch(() => undefined); // observed below; not an unhandled rejection meanwhile
    await this.sources.whenReady();
    return pending;
  }
}

function tokenCredentials(user: AuthUser, record: TokenRecord): Credentials {
  return { user, method: 'token', token: { id: record.publicId, scopes: record.scopes, org: record.orgId } };
}
