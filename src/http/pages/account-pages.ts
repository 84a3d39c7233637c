/**
 * The built-in login, register, forgot and reset pages. Each posts to the endpoint of the same
 * name under the prefix, same-site; an application replaces one by providing a view
 * `service-auth/<page>` to its view engine (see browser.ts), which gets the same locals.
 */
import { renderFields, type FieldErrors, type FieldSpec } from './fields.js';
import { escapeHtml } from './html.js';
import { layout, type Notice } from './layout.js';
import type { PageTexts } from './texts.js';

export interface AccountPageLocals {
  prefix: string;
  texts: PageTexts;
  /** A message above the form: a confirmation, or a problem no single field owns. */
  notice?: Notice | undefined;
  /** Problems by field name (`email`, `password`), shown beside the field. */
  errors?: FieldErrors | undefined;
  email?: string | undefined;
  /** Where to go after logging in or registering: a same-site path. */
  next?: string | undefined;
  token?: string | undefined;
  tokenUsable?: boolean | undefined;
  passwordHint?: string | undefined;
}

const emailField = (texts: PageTexts, email?: string): FieldSpec => ({
  name: 'email',
  label: texts.email,
  type: 'email',
  value: email ?? '',
  attributes: 'autocomplete="username" required maxlength="254"',
});

const hidden = (name: string, value: string | undefined) => (value ? `\n      <input type="hidden" name="${name}" value="${escapeHtml(value)}">` : '');

export function loginPage({ prefix, texts, notice, errors, email, next }: AccountPageLocals): string {
  const t = texts.login;
  const { fields, summary } = renderFields(
    [emailField(texts, email), { name: 'password', label: texts.password, type: 'password', attributes: 'autocomplete="current-password" required' }],
    errors,
    texts,
  );
  const register = `${prefix}/register${next ? `?next=${encodeURIComponent(next)}` : ''}`;
  return layout({
    title: t.title,
    texts,
    notice,
    body: `${summary}    <form method="post" action="${escapeHtml(prefix)}/login" novalidate>${fields}${hidden('next', next)}
      <button type="submit">${escapeHtml(t.submit)}</button>
    </form>
    <p><a href="${escapeHtml(prefix)}/forgot">${escapeHtml(t.forgot)}</a> · <a href="${escapeHtml(register)}">${escapeHtml(t.register)}</a></p>`,
  });
}

export function registerPage({ prefix, texts, notice, errors, email, next, passwordHint }: AccountPageLocals): string {
  const t = texts.register;
  const { fields, summary } = renderFields(
    [
      emailField(texts, email),
      { name: 'password', label: texts.password, type: 'password', hint: passwordHint, attributes: 'autocomplete="new-password" required' },
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

export function resetPage({ prefix, texts, notice, errors, token, tokenUsable, passwordHint }: AccountPageLocals): string {
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
    [{ name: 'password', label: texts.newPassword, type: 'password', hint: passwordHint, attributes: 'autocomplete="new-password" required' }],
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
