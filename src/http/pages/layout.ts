/** The shell of the built-in pages: plain, accessible HTML that works without scripts. */
import { COPY_SCRIPT, PASSKEY_SCRIPT, STYLESHEET, WEBAUTHN_BROWSER } from './assets.js';
import { escapeHtml } from './html.js';
import type { PageTexts } from './texts.js';

export interface Notice {
  kind: 'error' | 'info';
  text: string;
  /** Extra lines under the text. */
  items?: string[] | undefined;
}

export interface LayoutOptions {
  title: string;
  body: string;
  texts: PageTexts;
  notice?: Notice | null | undefined;
  /** A wider column, for tables. */
  wide?: boolean;
  /** Include the copy-button script (only the tokens page needs it). */
  script?: boolean;
  /** Include the passkey buttons' scripts (the login and passkeys pages). */
  passkeys?: boolean;
}

export function layout({
  title,
  body,
  texts,
  notice,
  wide = false,
  script = false,
  passkeys = false,
}: LayoutOptions): string {
  return (
    `<!doctype html>
<html lang="${escapeHtml(texts.lang)}">
<head>
  <meta charset="utf-8">
  <meta name="viewport" content="width=device-width, initial-scale=1">
  <meta name="referrer" content="no-referrer">
  <title>${escapeHtml(title)}</title>
  <style>${STYLESHEET}</style>
</head>
<body>
  <header><a href="/">${escapeHtml(texts.home)}</a></header>
  <main${wide ? ' class="wide"' : ''}>
    <h1>${escapeHtml(title)}</h1>
${notice ? noticeHtml(notice) : ''}${body}
  </main>` +
    `${script ? `\n  <script>${COPY_SCRIPT}</script>` : ''}${
      passkeys ? `\n  <script>${WEBAUTHN_BROWSER}</script>\n  <script>${PASSKEY_SCRIPT}</script>` : ''
    }
</body>
</html>
`
  );
}

function noticeHtml(notice: Notice): string {
  const role = notice.kind === 'error' ? 'alert' : 'status';
  const items = notice.items?.length
    ? `<ul>${notice.items.map((item) => `<li>${escapeHtml(item)}</li>`).join('')}</ul>`
    : '';
  return `    <div class="notice ${notice.kind}" role="${role}"><p>${escapeHtml(notice.text)}</p>${items}</div>\n`;
}

/** Who the viewer of a page acts as (docs/impersonation.md), and where the banner's stop form posts. */
export interface ImpersonationBanner {
  email: string;
  stopAction: string;
}

/**
 * The page with the banner of an impersonation at the top: whom the viewer acts as, and a button
 * that stops it. The form is a same-site POST like every other form of the pages: the guard's
 * same-site rule refuses it from another site (the CSRF protection of these pages, docs/security.md).
 * Added to the finished page here rather than by each page, so no page can leave it out.
 */
export function withImpersonationBanner(
  html: string,
  texts: PageTexts,
  banner: ImpersonationBanner | undefined,
): string {
  if (!banner) return html;
  const t = texts.impersonation;
  const form =
    `<form method="post" ` +
    `action="${escapeHtml(banner.stopAction)}"><p>${escapeHtml(t.banner(banner.email))} — ` +
    `<button type="submit">${escapeHtml(t.stop)}</button></p></form>`;
  return html.replace(
    '<body>\n',
    `<body>\n  <aside class="impersonation" aria-label="${escapeHtml(t.label)}">${form}</aside>\n`,
  );
}
