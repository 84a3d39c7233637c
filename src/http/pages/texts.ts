/**
 * Every word the built-in pages show, in one place. An application rewords or translates them by
 * assigning `auth.texts` a copy with its changes; its own templates receive the
 * same object as the local `texts`. Sentences that depend on a number or a name are functions.
 *
 * The JSON API keeps its own English `detail` strings: clients branch on `code`, people read these.
 */
import type { PasswordPolicy } from '../../config/config.js';
import type { PasswordRuleFailure } from '../../errors.js';
import { defaultMfaTexts, type MfaTexts } from './mfa-texts.js';
import { defaultOrgTexts, type OrgTexts } from './org-texts.js';
import { defaultProfileTexts, type ProfileTexts } from './profile-texts.js';
import { defaultSsoTexts, type SsoTexts } from './sso-texts.js';
import { defaultTokenTexts, type TokenTexts } from './token-texts.js';

export type PasswordRule = PasswordRuleFailure['rule'];

export interface PageTexts extends ProfileTexts, MfaTexts, OrgTexts, SsoTexts, TokenTexts {
  /** The pages' language, for `<html lang>`: screen readers pronounce the words by it. */
  lang: string;
  /** The link back to the application's home page, in every page's header. */
  home: string;
  /** The banner on every page while acting as another user, and its button (docs/impersonation.md). */
  impersonation: { label: string; banner(email: string): string; stop: string };
  /** Heading of the box that lists a form's problems above it. */
  errorSummary: string;
  /** Read before each field's error by screen readers (visually hidden). */
  errorPrefix: string;
  email: string;
  password: string;
  newPassword: string;
  passwordHint(policy: PasswordPolicy): string;

  login: {
    title: string;
    submit: string;
    forgot: string;
    register: string;
    resetDone: string;
    /** The right password for an account an operator disabled. */
    disabled: string;
    /** The right password for an address that awaits confirmation, and the button mailing a new link. */
    unconfirmed: string;
    resend: string;
  };
  register: { title: string; submit: string; haveAccount: string; login: string; checkMail: string };
  forgot: { title: string; intro: string; submit: string; sent: string; back: string };
  reset: { title: string; submit: string; unusable: string; askAgain: string };
  /** Shown beside the field they concern. */
  errors: {
    required: string;
    invalidEmail: string;
    emailTaken: string;
    invalidCredentials: string;
    /** The password asked again before a change to one's own account (no email typed with it). */
    wrongPassword: string;
    passwordRules: string;
    rules: Record<PasswordRule, (policy: PasswordPolicy) => string>;
    tokenName: string;
    tokenExpiry(max: number): string;
    tokenScopes: string;
    tokenOrg: string;
    tokenLimit(max: number): string;
    tokenNotFound: string;
  };

  /** Refusals that get a page of their own rather than a form with errors. */
  problems: {
    back: string;
    rateLimited: { title: string; text(seconds: number): string };
    crossSite: { title: string; text: string };
    loggedOut: { title: string; text: string; action: string };
    forbidden: { title: string; text: string };
    sessionRequired: { title: string; text: string };
    impersonating: { title: string; text: string };
    notFound: { title: string; text: string };
    badRequest: { title: string; text: string };
    unavailable: { title: string; text: string };
    other: { title: string; text: string };
  };
}

/**
 * Frozen all the way down: it is shared by every ServiceAuth in the process, so changing it in
 * place (`auth.texts.login.title = …`) would reword them all. That mistake throws instead; assign
 * a copy with the changes.
 */
export const defaultPageTexts: PageTexts = deepFreeze({
  lang: 'en',
  home: 'Home',
  impersonation: { label: 'Acting as another user', banner: (email) => `You are acting as ${email}`, stop: 'Stop' },
  errorSummary: 'There is a problem',
  errorPrefix: 'Error:',
  email: 'Email',
  password: 'Password',
  newPassword: 'New password',
  passwordHint: ({ minLength, complexity }) =>
    `At least ${minLength} characters` +
    `${complexity ? ', with an uppercase letter, a lowercase letter, a digit and a special character' : ''}.`,

  login: {
    title: 'Log in',
    submit: 'Log in',
    forgot: 'Forgot your password?',
    register: 'Create an account',
    resetDone: 'Your password has been changed. Log in with the new one.',
    disabled: 'This account has been disabled. Contact the site’s operators if you think this is a mistake.',
    unconfirmed: 'Confirm your email address first: open the link we mailed you when you registered.',
    resend: 'Mail me a new link',
  },
  register: {
    title: 'Create an account',
    submit: 'Create account',
    haveAccount: 'Already registered?',
    login: 'Log in',
    checkMail: 'Check your mail: a link to confirm the address is on its way. Open it to finish creating your account.',
  },
  forgot: {
    title: 'Forgot your password?',
    intro: 'Enter the email of your account and we will mail you a link to choose a new password.',
    submit: 'Send the link',
    sent: 'If an account exists for that email, a link to reset its password is on its way.',
    back: 'Back to log in',
  },
  reset: {
    title: 'Choose a new password',
    submit: 'Set password',
    unusable: 'This reset link is unknown, expired or already used.',
    askAgain: 'Ask for a new link',
  },
  ...defaultTokenTexts,
  ...defaultProfileTexts,
  ...defaultMfaTexts,
  ...defaultOrgTexts,
  ...defaultSsoTexts,

  errors: {
    required: 'Fill in this field.',
    invalidEmail: 'Enter an email address, like name@example.com.',
    emailTaken: 'An account with this email already exists. Log in, or use another email.',
    invalidCredentials: 'The email or password is not right.',
    wrongPassword: 'This is not your current password.',
    passwordRules: 'The password needs:',
    rules: {
      min_length: ({ minLength }) => `at least ${minLength} characters`,
      max_length: ({ maxLength }) => `at most ${maxLength} characters`,
      uppercase: () => 'an uppercase letter (A-Z)',
      lowercase: () => 'a lowercase letter (a-z)',
      digit: () => 'a digit (0-9)',
      special: () => 'a special character (anything but A-Z, a-z and 0-9)',
      blocklisted: () => 'not a commonly used password',
    },
    tokenName: 'Give the token a name of 1 to 100 characters.',
    tokenExpiry: (max) => `Enter a whole number of days from 1 to ${max}.`,
    tokenScopes: 'Each scope is 1 to 64 of a-z 0-9 : . _ -, separated by spaces.',
    tokenOrg: 'Choose one of your organizations, or none.',
    tokenLimit: (max) => `You already have ${max} tokens. Revoke one before creating another.`,
    tokenNotFound: 'That token does not exist, or was already revoked.',
  },

  problems: {
    back: 'Go back and try again',
    rateLimited: {
      title: 'Too many attempts',
      text: (seconds) => `Please wait ${seconds} seconds before trying again.`,
    },
    crossSite: {
      title: 'Request refused',
      text:
        'This form was sent from another site, so it was refused to protect your account. Open the ' +
        'page on this site and send it from there.',
    },
    loggedOut: { title: 'Please log in again', text: 'Your session has ended.', action: 'Log in' },
    forbidden: { title: 'Not allowed', text: 'Your account does not have permission for this.' },
    sessionRequired: {
      title: 'Log in first',
      text: 'This page is for a session started on the login page, not for an API token.',
    },
    impersonating: {
      title: 'Not while acting as another user',
      text:
        'Only the account’s owner may change its password, address, second factor, sessions or ' +
        'tokens, or delete it. Stop acting as this user first.',
    },
    notFound: { title: 'Not found', text: 'There is nothing here, or it is not yours.' },
    badRequest: { title: 'Bad request', text: 'The address or the form could not be read.' },
    unavailable: {
      title: 'Temporarily unavailable',
      text: 'The service could not answer. Please try again in a moment.',
    },
    other: { title: 'Something went wrong', text: 'The request could not be completed.' },
  },
});

function deepFreeze<T extends object>(value: T): T {
  for (const property of Object.values(value))
    if (typeof property === 'object' && property !== null) deepFreeze(property);
  return Object.freeze(value);
}
