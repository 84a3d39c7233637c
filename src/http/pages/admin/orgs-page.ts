/** `GET /admin/orgs` and `GET /admin/orgs/<id or slug>`: every organization, and one with its members and their roles. */
import type { MemberInfo, OrgInfo, OrgSummary } from '../../../orgs/views.js';
import { escapeHtml } from '../html.js';
import { adminLayout, pager, queryString, table, timeHtml, type AdminPageBase } from './shell.js';
import { ADMIN_TEXTS } from './texts.js';

export interface OrgsPageLocals extends AdminPageBase {
  orgs: OrgSummary[];
  page: number;
  hasNext: boolean;
}

export function orgsPage(locals: OrgsPageLocals): string {
  const t = ADMIN_TEXTS.orgs;
  const c = t.columns;
  const base = `${locals.prefix}/admin/orgs`;
  const rows = locals.orgs.map((org) => [
    `<a href="${escapeHtml(`${base}/${encodeURIComponent(org.slug)}`)}">${escapeHtml(org.name)}</a>`,
    `<code>${escapeHtml(org.slug)}</code>`,
    escapeHtml(org.members),
    timeHtml(org.created_at),
  ]);
  const list = rows.length
    ? table(t.caption(locals.page), [c.name, c.slug, c.members, c.created], rows)
    : `    <p>${escapeHtml(t.none)}</p>`;
  return adminLayout(
    locals,
    'orgs',
    ADMIN_TEXTS.sections.orgs,
    `${list}\n${pager(locals.page, locals.hasNext, (page) => `${base}${queryString({ page })}`)}`,
  );
}

export interface OrgPageLocals extends AdminPageBase {
  org: OrgInfo;
  /** Null when the operator's rules do not reach every membership. */
  members: MemberInfo[] | null;
  /** Whether the operator may open the users' pages (the emails are links then). */
  linkUsers: boolean;
}

export function orgPage(locals: OrgPageLocals): string {
  const t = ADMIN_TEXTS.org;
  const { org, members } = locals;
  const facts = `    <dl>
      <dt>${escapeHtml(t.facts.id)}</dt><dd>${escapeHtml(org.id)}</dd>
      <dt>${escapeHtml(t.facts.slug)}</dt><dd><code>${escapeHtml(org.slug)}</code></dd>
      <dt>${escapeHtml(t.facts.created)}</dt><dd>${timeHtml(org.created_at)}</dd>
    </dl>`;
  const user = (member: MemberInfo) =>
    locals.linkUsers
      ? `<a ` + `href="${escapeHtml(`${locals.prefix}/admin/users/${member.user_id}`)}">${escapeHtml(member.email)}</a>`
      : escapeHtml(member.email);
  const c = t.columns;
  const list =
    members === null
      ? `<p>${escapeHtml(t.hidden)}</p>`
      : members.length === 0
        ? `<p>${escapeHtml(t.none)}</p>`
        : table(
            t.caption(members.length),
            [c.email, c.roles, c.since],
            members.map((member) => [user(member), escapeHtml(member.roles.join(', ')), timeHtml(member.created_at)]),
          );
  return adminLayout(locals, 'orgs', t.title(org.name), `${facts}\n    <h2>${escapeHtml(t.members)}</h2>\n${list}`);
}
