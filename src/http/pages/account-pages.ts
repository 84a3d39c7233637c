/**
 * The built-in login, register, forgot and reset pages. Each posts to the endpoint of the same
 * name under the prefix, same-site; an application replaces one by providing a view
 * `service-auth/<page>` to its view engine (see render.ts), which gets the same locals.
 */
import { safeNext } from '../requests/negotiation.js';
import { renderFields, type FieldErrors, type FieldSpec } from './fields.js';
import { escapeHtml } from './html.js';
import { layout, type Notice } from './layout.js';
import type { PageTexts } from './texts.js';

/** What the login, register, forgot and reset pages are given: every key, null when it has no value. */
export interface AccountPageLocals {
  /** SERVICE_AUTH_URL_PREFIX, which the forms post under. */
  prefix: string;
  texts: PageTexts;
  /** A message above the form: a confirmation, or a problem no single field owns. */
  notice: Notice | null;
  /** Problems by field name (`email`, `password`), shown beside the field. */
  errors: FieldErrors | null;
  /** What was typed into the email field, shown again. */
  email: string | null;
  /** Where to go after logging in or registering: a same-site path. */
  next: string | null;
  /** The reset link's token (reset page). */
  token: string | null;
  /** Whether that token is current (reset page); false elsewhere. */
  tokenUsable: boolean;
  /** The password rules in words, for the fields that choose one. */
  passwordHint: string;
  /**
   * Login page: the password was right but the address awaits confirmation; the page offers to
   * mail a new link to `email` (a form posting to `/confirm/resend`). False elsewhere.
   */
  confirmationPending: boolean;
  /** Login page: the identity providers to sign in through, a button each (docs/sso.md). */
  providers: { id: string; name: string }[];
}

const emailField = (texts: PageTexts, email: string | null): FieldSpec => ({
  name: 'email',
  label: texts.email,
  type: 'email',
  value: email ?? '',
  attributes: 'autocomplete="username" required maxlength="254"',
});

const hidden = (name: string, value: string | null) =>
  value ? `\n      <input type="hidden" name="${name}" value="${escapeHtml(value)}">` : '';

export function loginPage({
  prefix,
  texts,
  notice,
  errors,
  email,
  next,
  confirmationPending,
  providers,
}: AccountPageLocals): string {
  const t = texts.login;
  const { fields, summary } = renderFields(
    [
      emailField(texts, email),
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
  const register = `${prefix}/register${next ? `?next=${encodeURIComponent(next)}` : ''}`;
  return layout({
    title: t.title,
    texts,
    notice,
    body:
      `${summary}${confirmationPending ? resendForm(prefix, texts, email) : ''}    <form ` +
      `method="post" action="${escapeHtml(prefix)}/login" novalidate>${fields}${hidden('next', next)}
      <button type="submit">${escapeHtml(t.submit)}</button>
    </form>
    <p><a href="${escapeHtml(prefix)}/forgot">${escapeHtml(t.forgot)}</a> · <a href="` +
      `${escapeHtml(register)}">${escapeHtml(t.register)}</a></p>
    <p><button type="button" class="secondary" hidden data-passkey="login" data-options="` +
      `${escapeHtml(prefix)}/login/passkey/options" data-verify="${escapeHtml(prefix)}/login/passkey" ` +
      `data-done="${escapeHtml(safeNext(next ?? ''))}" data-status="passkey-status" data-failed="` +
      `${escapeHtml(texts.passkeys.signInFailed)}">${escapeHtml(texts.passkeys.signIn)}</button></p>
    <p id="passkey-status" role="status" class="field-error"></p>${providerButtons(prefix, texts, next, providers)}`,
    passkeys: true,
  });
}

/**
 * A button per identity provider: a link to `/sso/<id>` carrying `next` (a link, not a form: the
 * pages' `form-action 'self'` would stop a form's redirect on to the provider).
 */
function providerButtons(
  prefix: string,
  texts: PageTexts,
  next: string | null,
  providers: { id: string; name: string }[],
): string {
  if (providers.length === 0) return '';
  const query = next ? `?next=${encodeURIComponent(next)}` : '';
  const buttons = providers.map(
    ({ id, name }) =>
      `\n    <p><a class="button" href="` +
      `${escapeHtml(`${prefix}/sso/${encodeURIComponent(id)}${query}`)}">` +
      `${escapeHtml(texts.sso.signInWith(name))}</a></p>`,
  );
  return `\n    <p>${escapeHtml(texts.sso.or)}</p>${buttons.join('')}`;
}

/** Under the notice that the address awaits confirmation: one button mailing a new link to it. */
function resendForm(prefix: string, texts: PageTexts, email: string | null): string {
  return `    <form method="post" action="${escapeHtml(prefix)}/confirm/resend">${hidden('email', email)}
      <button type="submit" class="secondary">${escapeHtml(texts.login.resend)}</button>
    </form>
`;
}

export function registerPage({ prefix, texts, notice, errors, email, next, passwordHint }: AccountPageLocals): string {
  const t = texts.register;
  const { fields, summary } = renderFields(
    [
      emailField(texts, email),
      {
        name: 'password',
        label: texts.password,
        type: 'password',
        hint: passwordHint,
        attributes: 'autocomplete="new-password" required',
      },
    ],
    errors,
    texts,
  );
  const login = `${prefix}/login${next ? `?next=${encodeURIComponent(next)}` : ''}`;
  return layout({
    title: t.title,
    texts,
    notice,
    body: `${summary}    <form method="post" action="${escapeHtml(prefix)}/register" novalidate>${fields}${hidden('next', next)}
      <button type="submit">${escapeHtml(t.submit)}</button>
    </form>
    <p>${escapeHtml(t.haveAccount)} <a href="${escapeHtml(login)}">${escapeHtml(t.login)}</a></p>`,
  });
}

export function forgotPage({ prefix, texts, notice, errors, email }: AccountPageLocals): string {
  const t = texts.forgot;
  const { fields, summary } = renderFields([emailField(texts, email)], errors, texts);
  return layout({
    title: t.title,
    texts,
    notice,
    body: `${summary}    <p>${escapeHtml(t.intro)}</p>
    <form method="post" action="${escapeHtml(prefix)}/forgot" novalidate>${fields}
      <button type="submit">${escapeHtml(t.submit)}</button>
    </form>
    <p><a href="${escapeHtml(prefix)}/login">${escapeHtml(t.back)}</a></p>`,
  });
}

export function resetPage({
  prefix,
  texts,
  notice,
  errors,
  token,
  tokenUsable,
  passwordHint,
}: AccountPageLocals): string {
  const t = texts.reset;
  if (!token || !tokenUsable) {
    return layout({
      title: t.title,
      texts,
      notice: { kind: 'error', text: t.unusable },
      body: `    <p><a href="${escapeHtml(prefix)}/forgot">${escapeHtml(t.askAgain)}</a></p>`,
    });
  }
  const { fields, summary } = renderFields(
    [
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
    body: `${summary}    <form method="post" action="${escapeHtml(prefix)}/reset" novalidate>${hidden('token', token)}${fields}
      <button type="submit">${escapeHtml(t.submit)}</button>
    </form>`,
  });
}
