/**
 * `GET /admin/audit`: the audit log, newest first, filtered by type, user and days (UTC), a page
 * at a time (older pages by record id, as `auth.audit.query` pages); and the button that
 * verifies the chain (`POST /admin/audit/verify`, whose answer is this page with the result).
 */
import { AUDIT_TYPES, type AuditRecord } from '../../../audit/records.js';
import { escapeHtml } from '../html.js';
import { adminLayout, queryString, table, timeHtml, type AdminPageBase } from './shell.js';
import { ADMIN_TEXTS } from './texts.js';

/** The filters as typed (the dates as `YYYY-MM-DD`). */
export interface AuditFilters {
  type?: string | undefined;
  email?: string | undefined;
  since?: string | undefined;
  until?: string | undefined;
}

export interface AuditPageLocals extends AdminPageBase {
  filters: AuditFilters;
  records: AuditRecord[];
  /** The id to page back from, when there are older records. */
  olderThan: number | null;
  /** Whether this page is an older one (a link back to the newest). */
  paged: boolean;
}

export function auditPage(locals: AuditPageLocals): string {
  const t = ADMIN_TEXTS.audit;
  const base = `${locals.prefix}/admin/audit`;
  const c = t.columns;
  const rows = locals.records.map((record) => [
    escapeHtml(record.id),
    timeHtml(record.at),
    `<code>${escapeHtml(record.type)}</code>`,
    escapeHtml(record.outcome + (record.reason ? ` (${record.reason})` : '')),
    escapeHtml([record.email, record.userId === null ? null : `#${record.userId}`].filter(Boolean).join(' ')),
    `<code>${escapeHtml(
      Object.entries(record.detail)
        .map(([key, value]) => `${key}=${String(value)}`)
        .join(' '),
    )}</code>`,
  ]);
  const list = rows.length
    ? table(t.caption, [c.id, c.at, c.type, c.outcome, c.user, c.detail], rows)
    : `    <p>${escapeHtml(t.none)}</p>`;
  const links = [
    locals.paged && `<a href="${escapeHtml(base + queryString({ ...locals.filters }))}">${escapeHtml(t.newest)}</a>`,
    locals.olderThan !== null &&
      `<a ` +
        `href="${escapeHtml(base + queryString({ ...locals.filters, before: locals.olderThan }))}" ` +
        `rel="next">${escapeHtml(t.older)}</a>`,
  ].filter(Boolean);
  const pages = links.length
    ? `    <nav aria-label="${escapeHtml(ADMIN_TEXTS.pager.label)}"><p>${links.join(' · ')}</p></nav>`
    : '';
  // The answer is this page again: with the filters it was asked from, not the whole log.
  const verify = `    <form method="post" action="${escapeHtml(`${base}/verify${queryString({ ...locals.filters })}`)}">
      <p class="hint" id="verify-hint">${escapeHtml(t.verifyHint)}</p>
      <button type="submit" class="secondary" aria-describedby="verify-hint">${escapeHtml(t.verify)}</button>
    </form>`;
  return adminLayout(
    locals,
    'audit',
    ADMIN_TEXTS.sections.audit,
    `${filterForm(base, locals.filters)}\n${list}\n${pages}\n${verify}`,
  );
}

function filterForm(base: string, filters: AuditFilters): string {
  const t = ADMIN_TEXTS.audit;
  const options = [
    `<option value="">${escapeHtml(t.anyType)}</option>`,
    ...AUDIT_TYPES.map((type) => `<option${type === filters.type ? ' selected' : ''}>${type}</option>`),
  ];
  const input = (name: keyof AuditFilters, label: string, type: string) =>
    `<div class="field"><label for="${name}">${escapeHtml(label)}</label><input id="${name}" ` +
    `name="${name}" type="${type}" value="${escapeHtml(filters[name] ?? '')}"></div>`;
  return `    <form method="get" action="${escapeHtml(base)}">
      <fieldset><legend>${escapeHtml(t.filters)}</legend>
      <div class="field"><label for="type">${escapeHtml(t.type)}</label><select id="type" name="type">${options.join('')}</select></div>
      ${input('email', t.email, 'text')}
      ${input('since', t.since, 'date')}
      ${input('until', t.until, 'date')}
      </fieldset>
      <button type="submit">${escapeHtml(t.apply)}</button>
    </form>`;
}
