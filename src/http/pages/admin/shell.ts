/**
 * What every console page shares: the pages' own layout (style, CSP, headers), a line of links to
 * the parts of the console the operator may use, the pager, and dates as the console shows them.
 */
import type { Response } from 'express';
import { BUILT_IN_CSP } from '../assets.js';
import { escapeHtml } from '../html.js';
import { layout, type Notice } from '../layout.js';
import { setPageHeaders } from '../render.js';
import type { PageTexts } from '../texts.js';
import type { Section } from './access.js';
import { ADMIN_TEXTS } from './texts.js';

/** What every console page is given. */
export interface AdminPageBase {
  prefix: string;
  texts: PageTexts;
  /** The parts of the console the operator may use (the links at the top). */
  sections: Section[];
  notice: Notice | null;
}

export function adminLayout(base: AdminPageBase, current: Section | null, title: string, body: string): string {
  return layout({
    title,
    texts: base.texts,
    notice: base.notice,
    wide: true,
    body: `${adminNav(base, current)}\n${body}`,
  });
}

function adminNav({ prefix, sections }: AdminPageBase, current: Section | null): string {
  const t = ADMIN_TEXTS;
  const links = [
    `<a ` +
      `href="${escapeHtml(prefix)}/admin"${current === null ? ' aria-current="page"' : ''}>${escapeHtml(t.title)}</a>`,
  ].concat(
    sections.map(
      (section) =>
        `<a href="${escapeHtml(prefix)}/admin/${section}"` +
        `${section === current ? ' aria-current="page"' : ''}>` +
        `${escapeHtml(t.sections[section])}</a>`,
    ),
  );
  return `    <nav aria-label="${escapeHtml(t.navLabel)}"><p>${links.join(' · ')}</p></nav>`;
}

/** Sends a console page with the headers and Content-Security-Policy of every built-in page. */
export function sendAdminPage(res: Response, status: number, html: string): void {
  setPageHeaders(res, BUILT_IN_CSP);
  res.status(status).type('html').send(html);
}

/** Links to the previous and next page; `href(n)` is page n's address. */
export function pager(page: number, hasNext: boolean, href: (page: number) => string): string {
  const t = ADMIN_TEXTS.pager;
  if (page === 1 && !hasNext) return '';
  const previous = page > 1 ? `<a href="${escapeHtml(href(page - 1))}" rel="prev">${escapeHtml(t.previous)}</a>` : '';
  const next = hasNext ? `<a href="${escapeHtml(href(page + 1))}" rel="next">${escapeHtml(t.next)}</a>` : '';
  return (
    `    <nav aria-label="${escapeHtml(t.label)}"><p>` +
    `${[previous, escapeHtml(t.page(page)), next].filter(Boolean).join(' · ')}</p></nav>`
  );
}

/** A query string of the values that are set. */
export function queryString(values: Record<string, string | number | undefined>): string {
  const params = new URLSearchParams();
  for (const [key, value] of Object.entries(values))
    if (value !== undefined && value !== '') params.set(key, String(value));
  const text = params.toString();
  return text ? `?${text}` : '';
}

/** `2026-11-23 09:24` (UTC) in a `<time>`. */
export function timeHtml(at: Date | string): string {
  const iso = typeof at === 'string' ? at : at.toISOString();
  return `<time datetime="${escapeHtml(iso)}">${escapeHtml(iso.slice(0, 16).replace('T', ' '))}</time>`;
}

/** A table with a caption, column headers and rows of cells (already HTML), each cell labelled for narrow screens. */
export function table(caption: string, columns: string[], rows: string[][]): string {
  const head = columns.map((column) => `<th scope="col">${escapeHtml(column)}</th>`).join('');
  const body = rows
    .map(
      (cells) =>
        `        ` +
        `<tr>${cells.map((cell, i) => `<td data-label="${escapeHtml(columns[i])}">${cell}</td>`).join('')}</tr>`,
    )
    .join('\n');
  return `    <table>
      <caption>${escapeHtml(caption)}</caption>
      <thead><tr>${head}</tr></thead>
      <tbody>
${body}
      </tbody>
    </table>`;
}
