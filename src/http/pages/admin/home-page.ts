/** `GET /admin`: the parts of the console the operator's rules open, each with what it is for. */
import { escapeHtml } from '../html.js';
import { adminLayout, type AdminPageBase } from './shell.js';
import { ADMIN_TEXTS } from './texts.js';

export function homePage(locals: AdminPageBase): string {
  const t = ADMIN_TEXTS;
  const items = locals.sections.map(
    (section) =>
      `      <li><a ` +
      `href="${escapeHtml(`${locals.prefix}/admin/${section}`)}">${escapeHtml(t.sections[section])}</a>: ` +
      `${escapeHtml(t.home.hints[section])}</li>`,
  );
  return adminLayout(
    locals,
    null,
    t.title,
    `    <p>${escapeHtml(t.home.intro)}</p>\n    <ul>\n${items.join('\n')}\n    </ul>`,
  );
}
