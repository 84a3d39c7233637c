/**
 * A refusal that no form field owns, for a person rather than a program: too many attempts, a
 * form sent from another site, a session that ended. The status stays the API's; the page says
 * what happened and where to go next.
 */
import { escapeHtml } from './html.js';
import { layout } from './layout.js';
import type { PageTexts } from './texts.js';

export interface ProblemPageLocals {
  prefix: string;
  texts: PageTexts;
  /** The API's stable code (`rate_limited`, `csrf_rejected`, …), for applications' own templates. */
  code: string;
  title: string;
  text: string;
  /** Where to go from here. */
  link: { href: string; text: string };
}

export function problemPage({ texts, title, text, link }: ProblemPageLocals): string {
  return layout({
    title,
    texts,
    notice: { kind: 'error', text },
    body: `    <p><a href="${escapeHtml(link.href)}">${escapeHtml(link.text)}</a></p>`,
  });
}
