/**
 * The links between a logged-in person's own pages, at the foot of each: plain links, the page
 * being shown marked `aria-current` so a screen reader says where one is.
 */
import { escapeHtml } from './html.js';
import type { PageTexts } from './texts.js';

export type AccountPage =
  | 'sessions'
  | 'password'
  | 'email'
  | 'mfa'
  | 'passkeys'
  | 'identities'
  | 'tokens'
  | 'orgs'
  | 'security-log'
  | 'delete-account';

export function accountNav(prefix: string, texts: PageTexts, current: AccountPage): string {
  const t = texts.account;
  const pages: [AccountPage, string][] = [
    ['sessions', t.sessions],
    ['password', t.password],
    ['email', t.email],
    ['mfa', t.mfa],
    ['passkeys', t.passkeys],
    ['identities', t.identities],
    ['tokens', t.tokens],
    ['orgs', t.orgs],
    ['security-log', t.securityLog],
    ['delete-account', t.deleteAccount],
  ];
  const links = pages.map(
    ([page, text]) =>
      `<a ` +
      `href="${escapeHtml(prefix)}/${page}"${page === current ? ' aria-current="page"' : ''}>${escapeHtml(text)}</a>`,
  );
  return `\n    <nav aria-label="${escapeHtml(t.heading)}"><h2>${escapeHtml(t.heading)}</h2><p>${links.join(' · ')}</p></nav>`;
}
