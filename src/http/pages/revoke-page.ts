/**
 * `GET /tokens/<id>/revoke`: asks before revoking. A page of its own rather than a script's
 * `confirm()`, so that the confirmation works without JavaScript; its form posts to
 * `/api/tokens/<id>/revoke`, since HTML forms cannot send DELETE.
 */
import type { TokenView } from '../../tokens/service.js';
import { escapeHtml } from './html.js';
import { layout } from './layout.js';
import type { PageTexts } from './texts.js';

export interface RevokePageLocals {
  prefix: string;
  texts: PageTexts;
  token: TokenView;
}

export function revokePage({ prefix, texts, token }: RevokePageLocals): string {
  const t = texts.revoke;
  return layout({
    title: t.title,
    texts,
    body: `    <p><strong>${escapeHtml(t.question(token.name))}</strong></p>
    <p>${escapeHtml(t.consequence)}</p>
    <form method="post" action="${escapeHtml(prefix)}/api/tokens/${encodeURIComponent(token.id)}/revoke" class="actions">
      <button type="submit" class="danger">${escapeHtml(t.confirm)}</button>
      <a href="${escapeHtml(prefix)}/tokens">${escapeHtml(t.cancel)}</a>
    </form>`,
  });
}
