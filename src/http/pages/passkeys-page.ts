/**
 * `GET /passkeys`: the signed-in user's passkeys, a button to remove each, and one to add another
 * (it needs JavaScript: the browser makes the passkey). The remove buttons post to
 * `/passkeys/<id>/remove`, since HTML forms cannot send `DELETE /api/passkeys/<id>`.
 */
import type { PasskeyView } from '../../mfa/passkeys.js';
import { accountListPage } from './account-list.js';
import { escapeHtml } from './html.js';
import type { Notice } from './layout.js';
import type { PageTexts } from './texts.js';

/** What the passkeys page is given: every key, null when it has no value. */
export interface PasskeysPageLocals {
  prefix: string;
  texts: PageTexts;
  /** The signed-in user's email. */
  email: string;
  /** The user's passkeys, oldest first, as `GET /api/passkeys` lists them. */
  passkeys: PasskeyView[];
  /** What was just done: a passkey added or removed. */
  notice: Notice | null;
}

export function passkeysPage({ prefix, texts, email, passkeys, notice }: PasskeysPageLocals): string {
  const t = texts.passkeys;
  const c = t.columns;
  const minutes = (iso: string | null): string => (iso === null ? t.never : iso.slice(0, 16).replace('T', ' '));
  return accountListPage({
    prefix,
    texts,
    notice,
    page: 'passkeys',
    title: t.title,
    intro: t.intro,
    items: passkeys,
    none: t.none,
    caption: t.caption(email),
    columns: [
      { heading: c.name, cell: (passkey) => escapeHtml(passkey.name) },
      { heading: c.created, cell: (passkey) => escapeHtml(minutes(passkey.created_at)) },
      { heading: c.lastUsed, cell: (passkey) => escapeHtml(minutes(passkey.last_used_at)) },
    ],
    actions: c.actions,
    button: (passkey) => ({
      path: `/passkeys/${encodeURIComponent(passkey.id)}/remove`,
      text: t.remove,
      label: t.removeLabel(passkey.name),
    }),
    after: addForm(escapeHtml(prefix), texts),
    passkeys: true,
  });
}

/** The fields and the button that add a passkey: the browser's script makes it and posts it. */
function addForm(prefix: string, texts: PageTexts): string {
  const t = texts.passkeys;
  const button = [
    `<button type="button" hidden data-passkey="register" data-options="${prefix}/api/passkeys/options"`,
    ` data-password="passkey-password" data-verify="${prefix}/api/passkeys" data-name="passkey-name"`,
    ` data-done="${prefix}/passkeys?added=1" data-status="passkey-status" data-failed="${escapeHtml(t.failed)}"`,
    ` data-password-refused="${escapeHtml(t.passwordRefused)}">${escapeHtml(t.add)}</button>`,
  ].join('');
  return (
    `
    <h2>${escapeHtml(t.add)}</h2>
    <div class="field">
      <label for="passkey-name">${escapeHtml(t.nameLabel)}</label>
      <p class="hint" id="passkey-name-hint">${escapeHtml(t.nameHint)}</p>
      <input id="passkey-name" maxlength="100" autocomplete="off" aria-describedby="passkey-name-hint">
    </div>
    <div class="field">
      <label for="passkey-password">${escapeHtml(t.passwordLabel)}</label>
      <p class="hint" id="passkey-password-hint">${escapeHtml(t.passwordHint)}</p>
      <input id="passkey-password" type="password" autocomplete="current-password"` +
    ` aria-describedby="passkey-password-hint">
    </div>
    <noscript><p>${escapeHtml(t.needsScript)}</p></noscript>
    ${button}
    <p id="passkey-status" role="status" class="field-error"></p>`
  );
}
