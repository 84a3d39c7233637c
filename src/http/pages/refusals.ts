/**
 * How a refused form post is told to a person, in the words of `texts`: a problem a field owns is
 * shown beside that field; one the form as a whole owns, above it; the rest (too many attempts, a
 * post from another site, a session that ended) get a page of their own.
 */
import type { AuthConfig } from '../../config/config.js';
import { SsoFailed, type AuthError } from '../../errors.js';
import type { FieldErrors } from './fields.js';
import type { Notice } from './layout.js';
import type { PageTexts } from './texts.js';

export interface FormRefusal {
  errors: FieldErrors | null;
  notice: Notice | null;
}

/** The form's errors, or undefined when the refusal deserves a page of its own (`problemFor`). */
export function formRefusal(error: AuthError, texts: PageTexts, config: AuthConfig): FormRefusal | undefined {
  const e = texts.errors;
  switch (error.code) {
    case 'bad_request': {
      if (!error.errors?.length) return undefined;
      const errors: FieldErrors = {};
      for (const item of error.errors) {
        if ('field' in item) errors[item.field] = { message: fieldMessage(item.field, item.message, texts, config) };
      }
      return { errors, notice: null };
    }
    case 'invalid_email':
      return { errors: { email: { message: e.invalidEmail } }, notice: null };
    case 'email_taken':
      return { errors: { email: { message: e.emailTaken } }, notice: null };
    case 'invalid_credentials':
      // Not said which of the two is wrong (that would tell who has an account); the password is
      // the field to type again, so that is where the message and the focus go.
      return { errors: { password: { message: e.invalidCredentials } }, notice: null };
    case 'password_rules':
      return {
        notice: null,
        errors: {
          password: {
            message: e.passwordRules,
            items: (error.errors ?? []).flatMap((item) =>
              'rule' in item && item.rule in e.rules
                ? [e.rules[item.rule as keyof typeof e.rules](config.passwords)]
                : [],
            ),
          },
        },
      };
    case 'invalid_code':
      return { errors: { code: { message: texts.mfa.invalidCode } }, notice: null };
    case 'account_disabled':
      return { errors: null, notice: { kind: 'error', text: texts.login.disabled } };
    case 'email_unconfirmed':
      return { errors: null, notice: { kind: 'error', text: texts.login.unconfirmed } };
    case 'token_limit':
      return { errors: null, notice: { kind: 'error', text: e.tokenLimit(config.tokens.maxPerUser) } };
    case 'not_found':
      return { errors: null, notice: { kind: 'error', text: e.tokenNotFound } };
    default:
      return undefined;
  }
}

function fieldMessage(field: string, apiMessage: string, texts: PageTexts, config: AuthConfig): string {
  const e = texts.errors;
  if (apiMessage === 'is required') return e.required;
  if (field === 'name') return e.tokenName;
  if (field === 'expires_in_days') return e.tokenExpiry(config.tokens.maxExpiryDays);
  if (field === 'scopes') return e.tokenScopes;
  if (field === 'org') return e.tokenOrg;
  return apiMessage;
}

/** The title and text of a refusal's own page. */
export function problemFor(error: AuthError, texts: PageTexts): { title: string; text: string } {
  const p = texts.problems;
  switch (error.code) {
    case 'rate_limited': {
      const seconds = Number(error.headers['Retry-After']);
      return { title: p.rateLimited.title, text: p.rateLimited.text(Number.isFinite(seconds) ? seconds : 60) };
    }
    case 'csrf_rejected':
      return p.crossSite;
    case 'unauthenticated':
    case 'invalid_token':
      return p.loggedOut;
    case 'forbidden':
    case 'insufficient_scope':
      return p.forbidden;
    case 'session_required':
      return p.sessionRequired;
    case 'impersonation_forbidden':
      return p.impersonating;
    case 'not_found':
      return p.notFound;
    case 'bad_request':
    case 'payload_too_large':
    case 'request_timeout':
      return p.badRequest;
    case 'unavailable':
      return p.unavailable;
    case 'identity_in_use':
      return { title: texts.sso.failedTitle, text: texts.sso.inUse };
    case 'sso_failed': {
      // The reason in words, and by its name (what support will be told).
      const reason = error instanceof SsoFailed ? error.reason : 'provider_error';
      return { title: texts.sso.failedTitle, text: `${texts.sso.failed[reason]} (${reason})` };
    }
    default:
      return p.other;
  }
}
