/**
 * The logged-in person's own account: `GET /password`, `GET /email` and `GET /delete-account`.
 * Each asks for the password again (a session left open on a shared computer is not enough to
 * take the account over) and posts to its endpoint under the prefix: `/password` and `/email`, as
 * the JSON API; `/delete-account`, since HTML forms cannot send `DELETE /me`.
 */
import { accountNav } from './account-nav.js';
import { renderFields, type FieldErrors } from './fields.js';
import { escapeHtml } from './html.js';
import { layout, type Notice } from './layout.js';
import type { PageTexts } from './texts.js';

/** What the password page is given: every key, null when it has no value. */
export interface PasswordPageLocals {
  prefix: string;
  texts: PageTexts;
  /** The signed-in user's email. */
  email: string;
  notice: Notice | null;
  /** Problems by field name (`current_password`, `password`). */
  errors: FieldErrors | null;
  /** The password rules in words, under the new password. */
  passwordHint: string;
}

/** What the email change page is given: every key, null when it has no value. */
export interface EmailPageLocals {
  prefix: string;
  texts: PageTexts;
  /** The account's address now. */
  email: string;
  /** What was typed as the new address, shown again when the form was refused. */
  newEmail: string | null;
  /** Says the link is on its way, after the form was sent. */
  notice: Notice | null;
  /** Problems by field name (`email`: the new address, `password`). */
  errors: FieldErrors | null;
}

/** What the account deletion page is given: every key, null when it has no value. */
export interface DeleteAccountPageLocals {
  prefix: string;
  texts: PageTexts;
  /** The signed-in user's email. */
  email: string;
  /** Problems by field name (`password`). */
  errors: FieldErrors | null;
}

export function passwordPage({ prefix, texts, email, notice, errors, passwordHint }: PasswordPageLocals): string {
  const t = texts.changePassword;
  const { fields, summary } = renderFields(
    [
      {
        name: 'current_password',
        label: t.current,
        type: 'password',
        attributes: 'autocomplete="current-password" required',
      },
      {
        name: 'password',
        label: texts.newPassword,
        type: 'password',
        hint: passwordHint,
        attributes: 'autocomplete="new-password" required',
      },
    ],
    errors,
    texts,
  );
  return layout({
    title: t.title,
    texts,
    notice,
    body: `${summary}    <p>${escapeHtml(t.intro)}</p>
    <form method="post" action="${escapeHtml(prefix)}/password" novalidate>${usernameFor(email)}${fields}
      <button type="submit">${escapeHtml(t.submit)}</button>
    </form>${accountNav(prefix, texts, 'password')}`,
  });
}

export function emailPage({ prefix, texts, email, newEmail, notice, errors }: EmailPageLocals): string {
  const t = texts.changeEmail;
  const { fields, summary } = renderFields(
    [
      {
        name: 'email',
        label: t.newEmail,
        type: 'email',
        value: newEmail ?? '',
        attributes: 'autocomplete="email" required maxlength="254"',
      },
      {
        name: 'password',
        label: texts.password,
        type: 'password',
        hint: t.passwordHint,
        attributes: 'autocomplete="current-password" required',
      },
    ],
    errors,
    texts,
  );
  return layout({
    title: t.title,
    texts,
    notice,
    body: `${summary}    <p>${escapeHtml(t.current(email))}</p>
    <form method="post" action="${escapeHtml(prefix)}/email" novalidate>${fields}
      <button type="submit">${escapeHtml(t.submit)}</button>
    </form>${accountNav(prefix, texts, 'email')}`,
  });
}

export function deleteAccountPage({ prefix, texts, email, errors }: DeleteAccountPageLocals): string {
  const t = texts.deleteAccount;
  const { fields, summary } = renderFields(
    [
      {
        name: 'password',
        label: texts.password,
        type: 'password',
        attributes: 'autocomplete="current-password" required',
      },
    ],
    errors,
    texts,
  );
  return layout({
    title: t.title,
    texts,
    body: `${summary}    <p><strong>${escapeHtml(t.warning(email))}</strong></p>
    <p>${escapeHtml(t.consequence)}</p>
    <form method="post" action="${escapeHtml(prefix)}/delete-account" novalidate>${usernameFor(email)}${fields}
      <div class="actions">
        <button type="submit" class="danger">${escapeHtml(t.submit)}</button>
        <a href="/">${escapeHtml(t.cancel)}</a>
      </div>
    </form>${accountNav(prefix, texts, 'delete-account')}`,
  });
}

/**
 * The account's address beside a password field, hidden: password managers pair the password with
 * it. It has no name, so the form does not send it.
 */
function usernameFor(email: string): string {
  return `\n      <input type="email" autocomplete="username" value="${escapeHtml(email)}" hidden readonly>`;
}
