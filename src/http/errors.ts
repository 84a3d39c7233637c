/**
 * The one error middleware (`auth.errorHandler`): every refusal and failure, from the auth router,
 * from a guard on an application's route, or from a body parser the application mounted before
 * us, is answered here, and only here.
 *
 * - For a person (a browser's navigation, or a form sent from one of our pages) a page: the form
 *   again with the problem beside its field when the problem is the form's, a redirect to the
 *   login page when logging in would help, and otherwise a page saying what happened.
 * - For everything else RFC 9457 problem details with a stable `code`.
 *
 * Anything that is not an AuthError is mapped first: a request that could not be read is a 400,
 * our database out of reach or busy a 503, and anything else an opaque 500 whose details go to
 * the log.
 */
import type { ErrorRequestHandler, Request, Response } from 'express';
import type { Refusal } from '../audit/audit-log.js';
import type { AuthConfig } from '../config/config.js';
import { AuthError, LoginRequired } from '../errors.js';
import { logError, type Logger, type RequestFacts } from '../logger.js';
import { clientKey } from '../rate-limit/client-key.js';
import { isDatabaseBusy, isDatabaseUnreachable } from '../storage/outages.js';
import { isNavigation, safeNext, wantsPage } from './requests/negotiation.js';
import { concernsForm, formRouteOf } from './pages/forms.js';
import type { PageTexts } from './pages/texts.js';
import { unreadableBody } from './requests/input.js';

export interface ErrorHandlerDeps {
  config: AuthConfig;
  /** Read when an error is answered: the application may replace either at any time. */
  pluggable: { readonly logger: Logger; readonly texts: PageTexts };
  /** Where refusals by a rate limit or the same-site rule are recorded (at most once per client and endpoint a minute). */
  audit: { refused(refusal: Refusal): void };
}

export function createErrorHandler(deps: ErrorHandlerDeps): ErrorRequestHandler {
  return (err: unknown, req, res, next) => {
    if (res.headersSent) {
      next(err);
      return;
    }
    const error = asAuthError(err, req, deps.pluggable.logger);
    if (error.code === 'rate_limited' || error.code === 'csrf_rejected') {
      // The route's pattern, not the path: a flood over many paths is still one endpoint.
      const endpoint = `${req.method} ${req.baseUrl}${(req.route as { path?: unknown } | undefined)?.path ?? ''}`;
      deps.audit.refused({ code: error.code, endpoint, ip: clientKey(req), userAgent: req.get('user-agent') });
    }
    res.setHeader('X-Content-Type-Options', 'nosniff');
    for (const [name, value] of Object.entries(error.headers)) res.setHeader(name, value);
    if (!wantsPage(req)) {
      sendProblem(res, error);
      return;
    }
    answerWithPage(req, res, error, deps).catch((pageError: unknown) => {
      logError(
        deps.pluggable.logger,
        'error',
        `could not show the page for a ${error.code} refusal`,
        pageError,
        requestFacts(req),
      );
      if (!res.headersSent) sendProblem(res, error);
    });
  };
}

export function sendProblem(res: Response, error: AuthError): void {
  res.status(error.status);
  res.setHeader('Cache-Control', 'no-store');
  res.type('application/problem+json').send(JSON.stringify(error.toProblem()));
}

async function answerWithPage(
  req: Request,
  res: Response,
  error: AuthError,
  { config, pluggable }: ErrorHandlerDeps,
): Promise<void> {
  const { texts } = pluggable;
  const prefix = config.urlPrefix;
  const login = (next: string) => (next ? `${prefix}/login?next=${encodeURIComponent(next)}` : `${prefix}/login`);
  if (error instanceof LoginRequired && isNavigation(req)) {
    res.redirect(303, login(safeNext(req.originalUrl, '')));
    return;
  }
  // The pages' modules load with the first page an error is answered with, not with the package.
  const [{ formRefusal, problemFor }, { sendPage }] = await Promise.all([
    import('./pages/refusals.js'),
    import('./pages/render.js'),
  ]);
  const form = formRouteOf(req);
  if (form) {
    const refusal = formRefusal(error, texts, config);
    if (await form.showAgain(req, res, error, concernsForm(form, refusal) ? refusal : undefined)) return;
  }
  const back = form ? form.page(req) : '/';
  const { title, text } = problemFor(error, texts);
  const link =
    error.code === 'unauthenticated'
      ? { href: login(back), text: texts.problems.loggedOut.action }
      : form
        ? { href: back, text: texts.problems.back }
        : { href: '/', text: texts.home };
  await sendPage(req, res, error.status, 'problem', { prefix, texts, code: error.code, title, text, link });
}

/** Any error as the AuthError to answer with. */
function asAuthError(err: unknown, req: Request, logger: Logger): AuthError {
  if (err instanceof AuthError) return err;
  if (isDatabaseUnreachable(err)) {
    logError(logger, 'error', 'database unreachable', err, requestFacts(req));
    return new AuthError('unavailable', 'The service is briefly unavailable; retry shortly', undefined, {
      'Retry-After': '5',
    });
  }
  if (isDatabaseBusy(err)) {
    // Another connection held the write lock longer than the busy timeout.
    logError(logger, 'warn', 'database busy', err, requestFacts(req));
    return new AuthError('unavailable', 'The service is busy; retry shortly', undefined, { 'Retry-After': '5' });
  }
  const status = statusOf(err);
  // Express's router could not decode a %-escape in the path.
  if (err instanceof URIError && status === 400)
    return new AuthError('bad_request', 'The path is not valid: a %-escape in it does not decode');
  if (isBodyParserError(err)) return unreadableBody(err);
  if (status !== undefined && status >= 400 && status < 500) return clientError(err, status);
  if (status === 503) return new AuthError('unavailable', 'The service is briefly unavailable; retry shortly');
  logError(logger, 'error', 'unexpected error', err, requestFacts(req));
  return new AuthError('internal_error', 'An unexpected error occurred');
}

/**
 * What the log says of a request: its method, its path without the query string (a query may carry
 * a secret: a reset link's token), and its id: `req.id` as pino-http or express-request-id set it,
 * else an `X-Request-Id` header from a proxy if it is a plain token (nothing a line could be forged with).
 */
function requestFacts(req: Request): RequestFacts {
  const facts: RequestFacts = { method: req.method, path: req.baseUrl + req.path };
  const { id } = req as { id?: unknown };
  const header = req.get('x-request-id');
  if (typeof id === 'string' || typeof id === 'number') facts.id = id;
  else if (header !== undefined && REQUEST_ID.test(header)) facts.id = header;
  return facts;
}

const REQUEST_ID = /^[\w.:@/+=-]{1,200}$/;

/** The status an `http-errors`-style error carries (body-parser's, the router's, an application's). */
function statusOf(err: unknown): number | undefined {
  const { status, statusCode } = (err ?? {}) as { status?: unknown; statusCode?: unknown };
  const value = typeof status === 'number' ? status : statusCode;
  return typeof value === 'number' && Number.isInteger(value) ? value : undefined;
}

/** body-parser's own refusals (a `type` such as `entity.parse.failed`), and zlib's on a bad compression. */
function isBodyParserError(err: unknown): boolean {
  const { type, code } = (err ?? {}) as { type?: unknown; code?: unknown };
  return (
    (typeof type === 'string' && /^(entity|encoding|charset|parameters)\./.test(type)) ||
    (typeof code === 'string' && /^Z_/.test(code))
  );
}

/** Another 4xx (an application's `createError(404)`, say), by its status; its message if it may be shown. */
function clientError(err: unknown, status: number): AuthError {
  const code =
    status === 401
      ? 'unauthenticated'
      : status === 403
        ? 'forbidden'
        : status === 404
          ? 'not_found'
          : status === 429
            ? 'rate_limited'
            : 'bad_request';
  const { expose, message } = err as { expose?: unknown; message?: unknown };
  return new AuthError(
    code,
    expose === true && typeof message === 'string' ? message : 'The request could not be completed',
  );
}
