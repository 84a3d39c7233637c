/**
 * The router mounted at SERVICE_AUTH_URL_PREFIX: register, login, logout, me, forgot and reset
 * (CONTRACT section 3), their pages, and problem details for every error.
 */
import express, { Router, type ErrorRequestHandler, type Request, type RequestHandler, type Response } from 'express';
import type { CredentialResolver } from '../authorization/credentials.js';
import type { AuthConfig } from '../config.js';
import { AuthError, databaseOutages, problemHandler } from '../errors.js';
import type { EventBus } from '../events.js';
import type { Logger } from '../logger.js';
import { clientKey } from '../rate-limit/client-key.js';
import type { Limiter } from '../rate-limit/limiter.js';
import { limitPerClient, rateLimited } from '../rate-limit/middleware.js';
import type { SessionCookie } from '../sessions/cookie.js';
import { assertSameSite } from '../sessions/csrf.js';
import type { SessionStore } from '../sessions/store.js';
import type { AuthUser } from '../users/auth-user.js';
import { normalizeEmail } from '../users/emails.js';
import type { PasswordResets } from '../users/password-resets.js';
import type { UserService } from '../users/service.js';
import { stringFields } from './body.js';
import { formFrom, isBrowserForm, problemPages, safeNext, sendPage } from './browser.js';
import type { AccountPageLocals } from './pages/account-pages.js';
import { formRefusal } from './pages/refusals.js';
import type { PageTexts } from './pages/texts.js';

type AccountPage = 'login' | 'register' | 'forgot' | 'reset';

export interface AuthLimiters {
  login: Limiter;
  register: Limiter;
  forgotPassword: Limiter;
  resetPassword: Limiter;
  /** Failed logins per (email, client) pair. */
  loginFailures: Limiter;
}

export interface AuthRouteDeps {
  config: AuthConfig;
  /** Routers mounted under the prefix after the account endpoints, e.g. `/api/abilities`. */
  apiRouters: Record<string, Router>;
  users: UserService;
  sessions: SessionStore;
  cookie: SessionCookie;
  credentials: CredentialResolver;
  resets: PasswordResets;
  events: EventBus;
  /** Absent when SERVICE_AUTH_RATE_LIMIT_ENABLED is false. */
  limiters: AuthLimiters | undefined;
  logger: Logger;
  /** The words of the built-in pages, read per request (an application may replace them). */
  texts(): PageTexts;
  whenReady(): Promise<void>;
  requestContext: RequestHandler;
}

// The JSON API's messages; the pages take theirs from `texts`.
const FORGOT_MESSAGE = 'If an account exists for that email, a link to reset its password is on its way.';
const RESET_MESSAGE = 'Your password has been changed. Log in with the new one.';

export function createAuthRouter(deps: AuthRouteDeps): Router {
  const { config, users, sessions, cookie, credentials, resets, events, limiters } = deps;
  const publicOrigin = new URL(config.publicUrl).origin;
  const router = Router();

  router.use(async (_req, _res, next) => {
    await deps.whenReady();
    next();
  });
  router.use(deps.requestContext);
  router.use(express.json({ limit: '16kb' }), express.urlencoded({ extended: false, limit: '16kb' }));

  const limit = (name: Exclude<keyof AuthLimiters, 'loginFailures'>, what: string): RequestHandler =>
    limiters ? limitPerClient(limiters[name], what) : (_req, _res, next) => next();
  const sameSite: RequestHandler = (req, _res, next) => {
    assertSameSite(req, publicOrigin);
    next();
  };
  const defaults = (): AccountPageLocals => pageDefaults(config, deps.texts());
  const page = (name: AccountPage, locals: (req: Request) => Promise<Partial<AccountPageLocals>> | Partial<AccountPageLocals> = () => ({})): RequestHandler =>
    async (req, res) => sendPage(req, res, 200, name, { ...defaults(), ...(await locals(req)) });
  const formErrors = (name: AccountPage) => refusedAccountForm(name, defaults, config);
  const formPage = (name: AccountPage) => formFrom((req) => accountFormPage(config.urlPrefix, name, req));

  /** A new session for `user`, replacing any the request carried (no session fixation). */
  async function startSession(req: Request, res: Response, user: AuthUser): Promise<void> {
    const previous = cookie.read(req);
    if (previous) await sessions.destroy(previous);
    const session = await sessions.create(user.id);
    cookie.set(res, session.id, session.expiresAt);
    credentials.forget(req);
  }

  router.get('/me', async (req, res) => {
    const found = await credentials.resolve(req);
    if (!found) throw new AuthError('unauthenticated', 'Log in to see this');
    res.json({ user: found.user });
  });

  router.get('/register', page('register', (req) => ({ next: optionalNext(req.query['next']) })));
  router.post(
    '/register',
    formPage('register'),
    limit('register', 'registrations from this address'),
    sameSite,
    (async (req, res) => {
      const { email, password } = stringFields(req, 'email', 'password');
      const user = await users.create({ email, password });
      await startSession(req, res, user);
      await events.emit('user_registered', user);
      if (isBrowserForm(req)) res.redirect(303, safeNext(req.body.next));
      else res.status(201).json({ user });
    }) satisfies RequestHandler,
    formErrors('register'),
  );

  router.get('/login', page('login', (req) => ({
    next: optionalNext(req.query['next']),
    notice: req.query['reset'] === 'done' ? { kind: 'info', text: deps.texts().login.resetDone } : undefined,
  })));
  router.post(
    '/login',
    formPage('login'),
    limit('login', 'login attempts from this address'),
    sameSite,
    (async (req, res) => {
      const { email, password } = stringFields(req, 'email', 'password');
      // Attempts count per (account, client), before the password is checked, so that guesses
      // sent at once cannot all be checked; a successful login clears the pair. Guessing one
      // account's password from one place is stopped, while its owner elsewhere, and this
      // client on other accounts, carry on.
      const pair = `${normalizeEmail(email)}|${clientKey(req)}`;
      const failures = limiters?.loginFailures;
      if (failures) {
        const state = await failures.consume(pair);
        if (!state.allowed) throw rateLimited(state, 'failed logins for this account from this address');
      }
      const user = await users.authenticate(email, password);
      if (!user) throw new AuthError('invalid_credentials', 'The email or password is not right');
      if (failures) await failures.reset(pair);
      await startSession(req, res, user);
      await events.emit('user_login', user);
      if (isBrowserForm(req)) res.redirect(303, safeNext(req.body.next));
      else res.json({ user });
    }) satisfies RequestHandler,
    formErrors('login'),
  );

  router.post('/logout', async (req, res) => {
    const sessionId = cookie.read(req);
    const session = sessionId ? await sessions.find(sessionId) : null;
    let user: AuthUser | null = null;
    if (sessionId && session) {
      // Logging out is a cookie-authenticated state change: another site may not force it.
      assertSameSite(req, publicOrigin);
      user = (await users.findById(session.userId)) ?? null;
      await sessions.destroy(sessionId);
    }
    cookie.clear(res);
    credentials.forget(req);
    if (user) await events.emit('user_logout', user);
    if (isBrowserForm(req)) res.redirect(303, '/');
    else res.status(204).end();
  });

  router.get('/forgot', page('forgot'));
  router.post(
    '/forgot',
    formPage('forgot'),
    limit('forgotPassword', 'password reset requests from this address'),
    (async (req, res) => {
      const { email } = stringFields(req, 'email');
      await resets.request(email);
      // The page keeps the API's status, as every page does: accepted, the mail may follow.
      if (isBrowserForm(req)) await sendPage(req, res, 202, 'forgot', { ...defaults(), notice: { kind: 'info', text: deps.texts().forgot.sent } });
      else res.status(202).json({ message: FORGOT_MESSAGE });
    }) satisfies RequestHandler,
    formErrors('forgot'),
  );

  router.get('/reset', page('reset', async (req) => {
    const token = typeof req.query['token'] === 'string' ? req.query['token'] : undefined;
    return { token, tokenUsable: token ? await resets.isUsable(token) : false };
  }));
  router.post(
    '/reset',
    formPage('reset'),
    limit('resetPassword', 'password resets from this address'),
    (async (req, res) => {
      const { token, password } = stringFields(req, 'token', 'password');
      await resets.complete(token, password);
      if (isBrowserForm(req)) res.redirect(303, `${config.urlPrefix}/login?reset=done`);
      else res.json({ message: RESET_MESSAGE });
    }) satisfies RequestHandler,
    formErrors('reset'),
  );

  for (const [path, apiRouter] of Object.entries(deps.apiRouters)) router.use(path, apiRouter);

  router.use(databaseOutages(deps.logger));
  router.use(problemPages({ prefix: config.urlPrefix, texts: deps.texts }));
  router.use(problemHandler(deps.logger));
  return router;
}

/** The account page whose form a browser sent, with what its URL carried (`next`, the reset link's token). */
function accountFormPage(prefix: string, name: AccountPage, req: Request): string {
  const body = (req.body ?? {}) as Record<string, unknown>;
  if (name === 'reset') return typeof body['token'] === 'string' ? `${prefix}/reset?token=${encodeURIComponent(body['token'])}` : '/';
  const next = name === 'forgot' ? undefined : optionalNext(body['next']);
  return `${prefix}/${name}${next ? `?next=${encodeURIComponent(next)}` : ''}`;
}

function pageDefaults(config: AuthConfig, texts: PageTexts): AccountPageLocals {
  return { prefix: config.urlPrefix, texts, passwordHint: texts.passwordHint(config.passwords) };
}

function optionalNext(value: unknown): string | undefined {
  const next = safeNext(value, '');
  return next || undefined;
}

/**
 * For a browser's form post, a refusal a field or the form owns shows the form again, with the
 * same status and headers, the problem beside its field and what was typed (never a password).
 * A reset link found unusable shows the reset page's "ask for a new link". Anything else goes on
 * to `problemPages`, and API clients get problem details from the router's handler.
 */
function refusedAccountForm(name: AccountPage, defaults: () => AccountPageLocals, config: AuthConfig): ErrorRequestHandler {
  return (error, req, res, next) => {
    if (!(error instanceof AuthError) || !isBrowserForm(req)) {
      next(error);
      return;
    }
    const body = (req.body ?? {}) as Record<string, unknown>;
    const locals = defaults();
    const token = typeof body['token'] === 'string' && body['token'] ? body['token'] : undefined;
    const unusableLink = name === 'reset' && (error.code === 'invalid_reset_token' || !token);
    const refusal = unusableLink ? {} : formRefusal(error, locals.texts, config);
    if (!refusal) {
      next(error);
      return;
    }
    for (const [header, value] of Object.entries(error.headers)) res.setHeader(header, value);
    sendPage(req, res, error.status, name, {
      ...locals,
      ...refusal,
      email: typeof body['email'] === 'string' ? body['email'] : undefined,
      next: optionalNext(body['next']),
      token,
      tokenUsable: !unusableLink,
    }).catch(next);
  };
}
