/**
 * The pages of the links mailed to confirm an address: `GET /confirm?token=…` (a new account's)
 * and `GET /confirm-email?token=…` (an email change's). Opening the link changes nothing, since
 * mail scanners follow links: the page shows a button whose form posts the token to
 * `/confirm` or `/confirm-email`, and the answer is the same page saying how it went.
 */
import { renderFields, type FieldErrors } from './fields.js';
import { escapeHtml } from './html.js';
import { layout } from './layout.js';
import type { PageTexts } from './texts.js';

/**
 * - `ask`: the link's button;
 * - `unusable`: the link is unknown, used or expired, with a form to ask for a new one;
 * - `resend`: the form to ask for a new link (opened without a link, or sent with a problem);
 * - `confirmed`: done, with a link to log in;
 * - `sent`: a new link is on its way, if the address awaits confirmation.
 */
export type ConfirmState = 'ask' | 'unusable' | 'resend' | 'confirmed' | 'sent';

/** What the address confirmation page is given: every key, null when it has no value. */
export interface ConfirmPageLocals {
  prefix: string;
  texts: PageTexts;
  state: ConfirmState;
  /** The link's token (`ask`), which the button's form posts. */
  token: string | null;
  /** The address confirmed (`confirmed`), or typed into the form asking for a new link. */
  email: string | null;
  /** Problems of the form asking for a new link, by field name (`email`). */
  errors: FieldErrors | null;
}

/**
 * - `ask`: the link's button; `unusable`: the link is unknown, used or expired;
 * - `taken`: another account took the address since the link was mailed (409);
 * - `changed`: done.
 */
export type ConfirmEmailState = 'ask' | 'unusable' | 'taken' | 'changed';

/** What the email change confirmation page is given: every key, null when it has no value. */
export interface ConfirmEmailPageLocals {
  prefix: string;
  texts: PageTexts;
  state: ConfirmEmailState;
  /** The link's token (`ask`), which the button's form posts. */
  token: string | null;
  /** The account's new address (`changed`). */
  email: string | null;
}

export function confirmPage({ prefix, texts, state, token, email, errors }: ConfirmPageLocals): string {
  const t = texts.confirm;
  const login = `    <p><a href="${escapeHtml(prefix)}/login">${escapeHtml(t.login)}</a></p>`;
  switch (state) {
    case 'ask':
      return layout({
        title: t.title,
        texts,
        body: `    <p>${escapeHtml(t.intro)}</p>\n${tokenForm(`${prefix}/confirm`, token, t.submit)}`,
      });
    case 'confirmed':
      return layout({ title: t.title, texts, notice: { kind: 'info', text: t.confirmed(email ?? '') }, body: login });
    case 'sent':
      return layout({ title: t.title, texts, notice: { kind: 'info', text: t.sent }, body: login });
    case 'unusable':
    case 'resend': {
      const { fields, summary } = renderFields(
        [
          {
            name: 'email',
            label: texts.email,
            type: 'email',
            value: email ?? '',
            attributes: 'autocomplete="email" required maxlength="254"',
          },
        ],
        errors,
        texts,
      );
      return layout({
        title: t.title,
        texts,
        notice: state === 'unusable' ? { kind: 'error', text: t.unusable } : null,
        body: `${summary}    <p>${escapeHtml(t.resendIntro)}</p>
    <form method="post" action="${escapeHtml(prefix)}/confirm/resend" novalidate>${fields}
      <button type="submit">${escapeHtml(t.resendSubmit)}</button>
    </form>`,
      });
    }
  }
}

export function confirmEmailPage({ prefix, texts, state, token, email }: ConfirmEmailPageLocals): string {
  const t = texts.confirmEmail;
  const again = `    <p><a href="${escapeHtml(prefix)}/email">${escapeHtml(t.askAgain)}</a></p>`;
  switch (state) {
    case 'ask':
      return layout({
        title: t.title,
        texts,
        body: `    <p>${escapeHtml(t.intro)}</p>\n${tokenForm(`${prefix}/confirm-email`, token, t.submit)}`,
      });
    case 'changed':
      return layout({
        title: t.title,
        texts,
        notice: { kind: 'info', text: t.changed(email ?? '') },
        body: `    <p><a href="/">${escapeHtml(t.continue)}</a></p>`,
      });
    case 'taken':
      return layout({ title: t.title, texts, notice: { kind: 'error', text: t.taken }, body: again });
    case 'unusable':
      return layout({ title: t.title, texts, notice: { kind: 'error', text: t.unusable }, body: again });
  }
}

/** One button posting the link's token: what acts is the person's press, not the link. */
function tokenForm(action: string, token: string | null, submit: string): string {
  return `    <form method="post" action="${escapeHtml(action)}">
      <input type="hidden" name="token" value="${escapeHtml(token ?? '')}">
      <button type="submit">${escapeHtml(submit)}</button>
    </form>`;
}
