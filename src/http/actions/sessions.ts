/**
 * The caller's own sessions, for the pages and the JSON API: list them, end one, end every other.
 * A session, not a token, manages sessions. Another user's session id is a 404, like an unknown
 * one: no way to learn which ids exist.
 */
import type { Request, Response } from 'express';
import type { CredentialResolver } from '../../authentication/credentials.js';
import type { SignIn } from '../../authentication/sign-in.js';
import { AuthError } from '../../errors.js';
import type { SessionStore, SessionView } from '../../sessions/store.js';
import { assertSession } from './session-only.js';

export class SessionActions {
  constructor(
    private readonly sessions: SessionStore,
    private readonly credentials: CredentialResolver,
    private readonly signIn: SignIn,
  ) {}

  async list(req: Request): Promise<SessionView[]> {
    assertSession(req);
    return this.sessions.list(req.user!.id, await this.currentId(req));
  }

  /**
   * Ends one of the caller's sessions; ending the current one logs the request out (cookie
   * cleared). Returns whether it was the current one (the pages then go to the login page).
   */
  async end(req: Request, res: Response, id: string): Promise<boolean> {
    assertSession(req);
    const current = await this.currentId(req);
    if (!(await this.sessions.endByPublicId(req.user!.id, id)))
      throw new AuthError('not_found', 'You have no session with this id');
    if (id !== current) return false;
    await this.signIn.end(req, res);
    return true;
  }

  /** Ends every session of the caller but the current one. */
  async endOthers(req: Request): Promise<void> {
    assertSession(req);
    await this.sessions.endAllBut(req.user!.id, await this.currentId(req));
  }

  private async currentId(req: Request): Promise<string | undefined> {
    return (await this.credentials.resolve(req))?.sessionId;
  }
}
