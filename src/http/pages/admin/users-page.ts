/** `GET /admin/users`: the users, a page at a time, searched by part of their address. */
import type { PublicUser } from '../../../users/auth-user.js';
import { escapeHtml } from '../html.js';
import { adminLayout, pager, queryString, table, timeHtml, type AdminPageBase } from './shell.js';
import { ADMIN_TEXTS } from './texts.js';

export interface UsersPageLocals extends AdminPageBase {
  users: PublicUser[];
  page: number;
  hasNext: boolean;
  search: string | undefined;
}

export function usersPage(locals: UsersPageLocals): string {
  const t = ADMIN_TEXTS.users;
  const base = `${locals.prefix}/admin/users`;
  const c = t.columns;
  const form = `    <form method="get" action="${escapeHtml(base)}" role="search">
      <div class="field"><label for="email">${escapeHtml(t.search)}</label><p class="hint" id="email-hint">${escapeHtml(t.searchHint)}</p>
      <input id="email" name="email" type="search" value="${escapeHtml(locals.search ?? '')}" aria-describedby="email-hint"></div>
      <button type="submit">${escapeHtml(t.searchButton)}</button>
    </form>`;
  const rows = locals.users.map((user) => [
    `<a href="${escapeHtml(`${base}/${user.id}`)}">${escapeHtml(user.email)}</a>`,
    escapeHtml(user.roles.join(', ')),
    escapeHtml(userState(user)),
    timeHtml(user.created_at),
  ]);
  const list = rows.length
    ? table(t.caption(locals.page, locals.search), [c.email, c.roles, c.state, c.created], rows)
    : `    <p>${escapeHtml(t.none)}</p>`;
  const pages = pager(locals.page, locals.hasNext, (page) => `${base}${queryString({ email: locals.search, page })}`);
  return adminLayout(locals, 'users', ADMIN_TEXTS.sections.users, `${form}\n${list}\n${pages}`);
}

/** The account's state in words: disabled, unconfirmed, with a second factor, an administrator. */
export function userState(user: PublicUser): string {
  const s = ADMIN_TEXTS.users.states;
  const states = [
    user.disabled && s.disabled,
    !user.email_confirmed && s.unconfirmed,
    user.mfa_enabled && s.mfa,
    user.is_admin && s.admin,
  ].filter((state): state is string => Boolean(state));
  return states.length ? states.join(', ') : s.active;
}
