/**
 * Sign-in through identity providers and the caller's linked identities, whichever router (pages
 * or JSON) took the request. The sign-in's attempt is bound to the browser that started it by a
 * cookie holding the attempt's random id (src/sso/attempts.ts keeps only its hash): HttpOnly,
 * SameSite=Lax (so that it comes back with the provider's redirect, a top-level GET), ten minutes,
 * and cleared by the answer.
 */
import type { Request, Response } from 'express';
import type { CredentialResolver } from '../../authentication/credentials.js';
import type { SignIn } from '../../authentication/sign-in.js';
import { AuthError, LoginRequired } from '../../errors.js';
import type { EventBus } from '../../events.js';
import { ATTEMPT_TTL_MS } from '../../sso/attempts.js';
import type { SsoFlow, SsoOutcome } from '../../sso/flow.js';
import type { Identities, IdentityView } from '../../sso/identities.js';
import { optionalNext } from '../requests/negotiation.js';
import { assertSession } from './session-only.js';

export interface SsoActionDeps {
  config: { readonly publicUrl: string; readonly urlPrefix: string; readonly sessions: { readonly secure: boolean } };
  flow: SsoFlow;
  identities: Identities;
  signIn: SignIn;
  credentials: CredentialResolver;
  events: EventBus;
}

export class SsoActions {
  private readonly cookieName: string;

  constructor(private readonly deps: SsoActionDeps) {
    // As the session cookie: `__Host-` where secure, so that no sibling subdomain can plant one.
    this.cookieName = deps.config.sessions.secure ? '__Host-service_auth_sso' : 'service_auth_sso';
  }

  /**
   * Where to send the browser to sign in with the provider (404 `not_found` for an unknown one).
   * `?link=1` links the identity to the signed-in user instead, which needs a session, and a start
   * from our own site: the cookie comes along on another site's top-level GET (SameSite=Lax), and
   * if that browser is signed in at the provider as someone else (a login CSRF there, a shared
   * machine), that someone's identity would be linked to this account, a way in for good. So the
   * start needs the browser's word that it came from our own pages: 403 `csrf_rejected`, nobody
   * sent on, otherwise (startedHere).
   */
  async start(req: Request, res: Response): Promise<string> {
    const providerId = String(req.params['provider']);
    this.deps.flow.provider(providerId);
    let linkUserId: number | null = null;
    if (req.query['link'] === '1') {
      const credentials = await this.deps.credentials.acceptable(req);
      if (!credentials) throw new LoginRequired('Sign in first, then link the provider from your account page');
      if (credentials.method !== 'session')
        throw new AuthError('session_required', 'Linking a provider needs a signed-in session, not a token');
      if (!startedHere(req)) {
        throw new AuthError(
          'csrf_rejected',
          'Link a provider from your account page: a link from another site was refused',
        );
      }
      linkUserId = credentials.user.id;
    }
    const { url, attemptId } = await this.deps.flow.start(providerId, {
      next: optionalNext(req.query['next']),
      linkUserId,
    });
    res.cookie(this.cookieName, attemptId, {
      httpOnly: true,
      sameSite: 'lax',
      secure: this.deps.config.sessions.secure,
      path: '/',
      maxAge: ATTEMPT_TTL_MS,
    });
    return url;
  }

  /**
   * The provider's answer: a session (as a password login: a new one, any previous ended), the
   * login's second step, or an identity linked. Refusals are 400 `sso_failed` with the reason.
   */
  async finish(req: Request, res: Response): Promise<SsoOutcome> {
    const { config, flow, signIn, events } = this.deps;
    const providerId = String(req.params['provider']);
    const attemptId = this.readCookie(req);
    res.clearCookie(this.cookieName, { httpOnly: true, sameSite: 'lax', secure: config.sessions.secure, path: '/' });
    const query = req.originalUrl.indexOf('?');
    const callbackUrl = new URL(
      `${config.publicUrl}${config.urlPrefix}/sso/${encodeURIComponent(providerId)}/callback` +
        `${query === -1 ? '' : req.originalUrl.slice(query)}`,
    );
    const current = await this.deps.credentials.acceptable(req).catch(() => null);
    const outcome = await flow.finish(
      providerId,
      attemptId,
      callbackUrl,
      current?.method === 'session' ? current.user : null,
    );
    if (outcome.kind === 'signed_in') {
      await signIn.start(req, res, outcome.user, {
        type: 'login',
        email: outcome.user.email,
        detail: { provider: outcome.provider },
      });
      if (outcome.registered) await events.emit('user_registered', outcome.user);
      await events.emit('user_login', outcome.user);
    } else if (outcome.kind === 'linked') {
      await events.emit('identity_linked', outcome.user);
    }
    return outcome;
  }

  list(req: Request): Promise<IdentityView[]> {
    assertSession(req);
    return this.deps.identities.list(req.user!.id);
  }

  /** 404 `not_found` for an identity the caller does not have; 409 `last_sign_in_method` for their only way in. */
  async unlink(req: Request): Promise<void> {
    assertSession(req);
    const id = Number(req.params['id']);
    if (!/^\d{1,15}$/.test(String(req.params['id'])))
      throw new AuthError('not_found', 'You have no identity with this id');
    await this.deps.identities.unlink(req.user!.id, id);
    await this.deps.events.emit('identity_unlinked', req.user!);
  }

  /** The attempt id in our cookie, if the request carries one. */
  private readCookie(req: Request): string | undefined {
    for (const pair of (req.headers.cookie ?? '').split(';')) {
      const [name, ...value] = pair.trim().split('=');
      if (name === this.cookieName) return value.join('=');
    }
    return undefined;
  }
}

/**
 * Whether a navigation was started on our own site: `Sec-Fetch-Site: same-origin`, or `none` (typed
 * in, a bookmark). Unlike the posts' rule (sessions/csrf.ts), the absence of the header is no
 * evidence: a GET carries no Origin, our pages send no Referer, and SameSite=Lax lets another
 * site's top-level GET bring the cookie. Every current browser sends the header (Safari since
 * 16.4, 2023); an older one cannot start linking.
 */
function startedHere(req: Request): boolean {
  const site = req.get('sec-fetch-site');
  return site === 'same-origin' || site === 'none';
}
