/**
 * `GET /passkeys`: the signed-in user's passkeys, a button to remove each, and one to add another
 * (it needs JavaScript: the browser makes the passkey). The remove buttons post to
 * `/passkeys/<id>/remove`, since HTML forms cannot send `DELETE /api/passkeys/<id>`.
 */
import type { PasskeyView } from '../../mfa/passkeys.js';
import { accountNav } from './account-nav.js';
import { escapeHtml } from './html.js';
import { layout, type Notice } from './layout.js';
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

export function passkeysPage(locals: PasskeysPageLocals): string {
  const { texts } = locals;
  const t = texts.passkeys;
  const prefix = escapeHtml(locals.prefix);
  const list = locals.passkeys.length === 0 ? `    <p>${escapeHtml(t.none)}</p>` : passkeyTable(locals);
  return layout({
    title: t.title,
    texts,
    notice: locals.notice,
    wide: true,
    passkeys: true,
    body: `    <p>${escapeHtml(t.intro)}</p>
${list}
    <h2>${escapeHtml(t.add)}</h2>
    <div class="field">
      <label for="passkey-name">${escapeHtml(t.nameLabel)}</label>
      <p class="hint" id="passkey-name-hint">${escapeHtml(t.nameHint)}</p>
      <input id="passkey-name" maxlength="100" autocomplete="off" aria-describedby="passkey-name-hint">
    </div>
    <div class="field">
      <label for="passkey-password">${escapeHtml(t.passwordLabel)}</label>
      <p class="hint" id="passkey-password-hint">${escapeHtml(t.passwordHint)}</p>
      <input id="passkey-password" type="password" autocomplete="current-password" aria-describedby="passkey-password-hint">
    </div>
    <noscript><p>${escapeHtml(t.needsScript)}</p></noscript>
    <button type="button" hidden data-passkey="register" data-options="${prefix}/api/passkeys/options" data-password="passkey-password" data-verify="${prefix}/api/passkeys" data-name="passkey-name" data-done="${prefix}/passkeys?added=1" data-status="passkey-status" data-failed="${escapeHtml(t.failed)}" data-password-refused="${escapeHtml(t.passwordRefused)}">${escapeHtml(t.add)}</button>
    <p id="passkey-status" role="status" class="field-error"></p>${accountNav(locals.prefix, texts, 'passkeys')}`,
  });
}

function passkeyTable({ prefix, texts, email, passkeys }: PasskeysPageLocals): string {
  const t = texts.passkeys;
  const c = t.columns;
  const minutes = (iso: string | null) => (iso === null ? t.never : iso.slice(0, 16).replace('T', ' '));
  const rows = passkeys.map(
    (passkey) => `        <tr>
          <td data-label="${escapeHtml(c.name)}">${escapeHtml(passkey.name)}</td>
          <td data-label="${escapeHtml(c.created)}">${escapeHtml(minutes(passkey.created_at))}</td>
          <td data-label="${escapeHtml(c.lastUsed)}">${escapeHtml(minutes(passkey.last_used_at))}</td>
          <td><form method="post" action="${escapeHtml(prefix)}/passkeys/${encodeURIComponent(passkey.id)}/remove"><button type="submit" class="secondary" aria-label="${escapeHtml(t.removeLabel(passkey.name))}">${escapeHtml(t.remove)}</button></form></td>
        </tr>`,
  );
  return `    <table>
      <caption>${escapeHtml(t.caption(email))}</caption>
      <thead><tr><th scope="col">${escapeHtml(c.name)}</th><th scope="col">${escapeHtml(c.created)}</th><th scope="col">${escapeHtml(c.lastUsed)}</th><th scope="col"><span class="visually-hidden">${escapeHtml(c.actions)}</span></th></tr></thead>
      <tbody>
${rows.join('\n')}
      </tbody>
    </table>`;
}
