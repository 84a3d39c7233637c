/**
 * The second factor's pages. `GET /mfa`: set up an authenticator app (its QR code and key, then a
 * code to turn it on), the ten recovery codes once, and removing it with the password. The login's
 * second step: a code from the app, or a recovery code, for the ticket the password earned.
 */
import { safeNext } from '../requests/negotiation.js';
import { accountNav } from './account-nav.js';
import { renderFields, type FieldErrors } from './fields.js';
import { escapeHtml } from './html.js';
import { layout, type Notice } from './layout.js';
import type { PageTexts } from './texts.js';

/** A pending set-up as the page shows it: the QR code (an SVG document from `qrcode`) and the key. */
export interface TotpSetupView {
  secret: string;
  qrSvg: string;
}

/** What the two-step login page is given: every key, null when it has no value. */
export interface MfaPageLocals {
  prefix: string;
  texts: PageTexts;
  email: string;
  /** `none`, `pending` (started, not confirmed) or `enabled`. */
  state: 'none' | 'pending' | 'enabled';
  /** The set-up to finish: shown after "Set up", and again when its code was wrong. */
  setup: TotpSetupView | null;
  /** The recovery codes, once, right after the app was turned on. */
  recoveryCodes: string[] | null;
  recoveryCodesLeft: number;
  /** Problems by field name (`code`, `password`). */
  errors: FieldErrors | null;
  notice: Notice | null;
}

/** What the login's second step is given: every key, null when it has no value. */
export interface SecondStepPageLocals {
  prefix: string;
  texts: PageTexts;
  /** The ticket the password earned, sent back with the code as a hidden field. */
  ticket: string;
  /** Whether the account has a passkey to offer instead of a code. */
  passkey: boolean;
  next: string | null;
  /** Problems by field name (`code`, `recovery_code`). */
  errors: FieldErrors | null;
  notice: Notice | null;
}

export function mfaPage(locals: MfaPageLocals): string {
  const { prefix, texts } = locals;
  const t = texts.mfa;
  const action = (path: string) => `${escapeHtml(prefix)}/mfa/${path}`;
  let body: string;
  let summary = '';
  if (locals.recoveryCodes) {
    body = `    <h2>${escapeHtml(t.codesTitle)}</h2>
    <p>${escapeHtml(t.codesIntro)}</p>
    <ul class="codes">${locals.recoveryCodes.map((code) => `<li><code>${escapeHtml(code)}</code></li>`).join('')}</ul>
    <p><a href="${escapeHtml(prefix)}/mfa">${escapeHtml(t.done)}</a></p>`;
  } else if (locals.setup) {
    const code = renderFields(
      [
        {
          name: 'code',
          label: t.code,
          hint: t.codeHint,
          attributes:
            'inputmode="numeric" autocomplete="one-time-code" pattern="[0-9]{6}" maxlength="6" required ' +
            '' +
            'autofocus',
        },
      ],
      locals.errors,
      texts,
    );
    summary = code.summary;
    body = `    <p>${escapeHtml(t.scan)}</p>
    <figure class="qr">${locals.setup.qrSvg}</figure>
    <p>${escapeHtml(t.orType)} <code class="secret">${escapeHtml(locals.setup.secret)}</code></p>
    <form method="post" action="${action('totp/confirm')}" novalidate>${code.fields}
      <button type="submit">${escapeHtml(t.confirm)}</button>
    </form>`;
  } else if (locals.state === 'enabled') {
    const password = renderFields(
      [
        {
          name: 'password',
          label: texts.password,
          type: 'password',
          attributes: 'autocomplete="current-password" required',
        },
      ],
      locals.errors,
      texts,
    );
    summary = password.summary;
    body = `    <p>${escapeHtml(t.on(locals.recoveryCodesLeft))}</p>
    <p>${escapeHtml(t.removeIntro)}</p>
    <form method="post" action="${action('totp/remove')}" novalidate>
      <input type="email" autocomplete="username" value="${escapeHtml(locals.email)}" hidden readonly>${password.fields}
      <button type="submit" class="danger">${escapeHtml(t.remove)}</button>
    </form>`;
  } else {
    body = `    <p>${escapeHtml(t.off)}</p>${locals.state === 'pending' ? `\n    <p class="hint">${escapeHtml(t.pendingNote)}</p>` : ''}
    <form method="post" action="${action('totp')}">
      <button type="submit">${escapeHtml(t.setUp)}</button>
    </form>`;
  }
  return layout({
    title: t.title,
    texts,
    notice: locals.notice,
    body: `${summary}${body}${accountNav(prefix, texts, 'mfa')}`,
  });
}

export function secondStepPage(locals: SecondStepPageLocals): string {
  const { prefix, texts } = locals;
  const t = texts.secondStep;
  const hidden =
    `
      <input type="hidden" name="ticket" value="${escapeHtml(locals.ticket)}">` +
    `${locals.next ? `\n      <input type="hidden" name="next" value="${escapeHtml(locals.next)}">` : ''}`;
  const recoveryRefused = locals.errors?.['recovery_code'] !== undefined;
  const code = renderFields(
    [
      {
        name: 'code',
        label: t.code,
        attributes:
          `inputmode="numeric" autocomplete="one-time-code" pattern="[0-9]{6}" maxlength="6" ` +
          `required${recoveryRefused ? '' : ' autofocus'}`,
      },
    ],
    recoveryRefused ? null : locals.errors,
    texts,
  );
  const recovery = renderFields(
    [
      {
        name: 'recovery_code',
        label: t.recoveryCode,
        hint: t.recoveryHint,
        attributes: `autocomplete="off" spellcheck="false" required${recoveryRefused ? ' autofocus' : ''}`,
      },
    ],
    recoveryRefused ? locals.errors : null,
    texts,
  );
  // Shown by the script where the browser can use passkeys.
  const passkeyButton =
    `
    <p><button type="button" class="secondary" hidden data-passkey="login" data-ticket="` +
    `${escapeHtml(locals.ticket)}" data-options="${escapeHtml(prefix)}/login/mfa/passkey/options" ` +
    `data-verify="${escapeHtml(prefix)}/login/mfa" data-done="` +
    `${escapeHtml(safeNext(locals.next ?? ''))}" data-status="passkey-status" data-failed="` +
    `${escapeHtml(t.passkeyFailed)}">${escapeHtml(t.usePasskey)}</button></p>
    <p id="passkey-status" role="status" class="field-error"></p>`;
  return layout({
    title: t.title,
    texts,
    notice: locals.notice,
    body: `${code.summary}${recovery.summary}    <p>${escapeHtml(t.intro)}</p>
    <form method="post" action="${escapeHtml(prefix)}/login/mfa" novalidate>${hidden}${code.fields}
      <button type="submit">${escapeHtml(t.submit)}</button>
    </form>${locals.passkey ? passkeyButton : ''}
    <details${recoveryRefused ? ' open' : ''}>
      <summary>${escapeHtml(t.useRecovery)}</summary>
      <form method="post" action="${escapeHtml(prefix)}/login/mfa" novalidate>${hidden}${recovery.fields}
        <button type="submit" class="secondary">${escapeHtml(t.recoverySubmit)}</button>
      </form>
    </details>`,
    passkeys: locals.passkey,
  });
}
