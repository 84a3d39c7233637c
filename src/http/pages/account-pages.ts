/**
 * The built-in login, register, forgot and reset pages. Each posts to the endpoint of the same
 * name under the prefix, same-site; an application replaces one by providing a view
 * `service-auth/<page>` to its view engine (see browser.ts), which gets the same locals.
 */
import { escapeHtml, layout, type Notice } from './layout.js';

export interface PageLocals {
  prefix: string;
  notice?: Notice | undefined;
  email?: string | undefined;
  /** Where to go after logging in or registering: a same-site path. */
  next?: string | undefined;
  token?: string | undefined;
  tokenUsable?: boolean | undefined;
  passwordHint?: string | undefined;
}

const emailField = (email = '') => `
      <label for="email">Email</label>
      <input id="email" name="email" type="email" autocomplete="username" required maxlength="254" value="${escapeHtml(email)}">`;

const nextField = (next?: string) => (next ? `\n      <input type="hidden" name="next" value="${escapeHtml(next)}">` : '');

export function loginPage({ prefix, notice, email, next }: PageLocals): string {
  return layout(
    'Log in',
    `    <form method="post" action="${escapeHtml(prefix)}/login">${emailField(email)}
      <label for="password">Password</label>
      <input id="password" name="password" type="password" autocomplete="current-password" required>${nextField(next)}
      <button type="submit">Log in</button>
    </form>
    <p><a href="${escapeHtml(prefix)}/forgot">Forgot your password?</a> · <a href="${escapeHtml(prefix)}/register${next ? `?next=${encodeURIComponent(next)}` : ''}">Create an account</a></p>`,
    notice,
  );
}

export function registerPage({ prefix, notice, email, next, passwordHint }: PageLocals): string {
  return layout(
    'Create an account',
    `    <form method="post" action="${escapeHtml(prefix)}/register">${emailField(email)}
      <label for="password">Password</label>
      <input id="password" name="password" type="password" autocomplete="new-password" required aria-describedby="password-hint">
      <p id="password-hint">${escapeHtml(passwordHint)}</p>${nextField(next)}
      <button type="submit">Create account</button>
    </form>
    <p>Already registered? <a href="${escapeHtml(prefix)}/login">Log in</a></p>`,
    notice,
  );
}

export function forgotPage({ prefix, notice, email }: PageLocals): string {
  return layout(
    'Forgot your password?',
    `    <p>Enter the email of your account and we will mail you a link to choose a new password.</p>
    <form method="post" action="${escapeHtml(prefix)}/forgot">${emailField(email)}
      <button type="submit">Send the link</button>
    </form>
    <p><a href="${escapeHtml(prefix)}/login">Back to log in</a></p>`,
    notice,
  );
}

export function resetPage({ prefix, notice, token, tokenUsable, passwordHint }: PageLocals): string {
  if (!token || !tokenUsable) {
    return layout(
      'Choose a new password',
      `    <p>This reset link is unknown, expired or already used. <a href="${escapeHtml(prefix)}/forgot">Ask for a new one</a>.</p>`,
      notice,
    );
  }
  return layout(
    'Choose a new password',
    `    <form method="post" action="${escapeHtml(prefix)}/reset">
      <input type="hidden" name="token" value="${escapeHtml(token)}">
      <label for="password">New password</label>
      <input id="password" name="password" type="password" autocomplete="new-password" required aria-describedby="password-hint">
      <p id="password-hint">${escapeHtml(passwordHint)}</p>
      <button type="submit">Set password</button>
    </form>`,
    notice,
  );
}

export const PAGES = { login: loginPage, register: registerPage, forgot: forgotPage, reset: resetPage };
export type PageName = keyof typeof PAGES;
