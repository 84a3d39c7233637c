/**
 * The shape the account's list pages share (`/identities`, `/passkeys`, `/sessions`): an intro,
 * a table of the user's things (or a line saying there are none), one button per row, whatever
 * the page adds below, and the account's navigation. Each row's button is a form that posts,
 * since HTML forms cannot send the `DELETE` the JSON API takes. Each page supplies its columns,
 * its button and what comes after; the markup, the same on every page, is written here once.
 */
import { accountNav, type AccountPage } from './account-nav.js';
import { escapeHtml } from './html.js';
import { layout, type Notice } from './layout.js';
import type { PageTexts } from './texts.js';

export interface ListColumn<Item> {
  /** The column's heading, also each cell's label on a narrow screen. */
  heading: string;
  /** The cell's content, as HTML (the page escapes what it puts in). */
  cell: (item: Item) => string;
}

/** A row's button: a form posting to the prefix + `path` (HTML-safe, its ids URL-encoded by the page). */
export interface RowButton {
  path: string;
  text: string;
  /** The button's name for a screen reader, which says which row it acts on. */
  label: string;
}

export interface AccountListPage<Item> {
  prefix: string;
  texts: PageTexts;
  notice: Notice | null;
  /** Which entry of the account's navigation this page is. */
  page: AccountPage;
  title: string;
  /** The paragraph above the list, if any. */
  intro?: string;
  items: Item[];
  /** The line instead of the table when there are no items; without it, the table is shown empty. */
  none?: string;
  caption: string;
  columns: ListColumn<Item>[];
  /** The heading of the buttons' column, for screen readers only. */
  actions: string;
  button: (item: Item) => RowButton;
  /** What comes after the list, as HTML. */
  after?: string;
  /** Include the passkey buttons' scripts. */
  passkeys?: boolean;
}

export function accountListPage<Item>(list: AccountListPage<Item>): string {
  const intro = list.intro === undefined ? '' : `    <p>${escapeHtml(list.intro)}</p>\n`;
  const table =
    list.items.length === 0 && list.none !== undefined ? `    <p>${escapeHtml(list.none)}</p>` : tableOf(list);
  return layout({
    title: list.title,
    texts: list.texts,
    notice: list.notice,
    wide: true,
    passkeys: list.passkeys ?? false,
    body: `${intro}${table}${list.after ?? ''}${accountNav(list.prefix, list.texts, list.page)}`,
  });
}

function tableOf<Item>({ prefix, items, caption, columns, actions, button }: AccountListPage<Item>): string {
  const headings = columns.map(({ heading }) => `<th scope="col">${escapeHtml(heading)}</th>`).join('');
  const rows = items.map((item) => {
    const cells = columns.map(
      ({ heading, cell }) => `          <td data-label="${escapeHtml(heading)}">${cell(item)}</td>\n`,
    );
    const { path, text, label } = button(item);
    const form = `<form method="post" action="${escapeHtml(prefix)}${path}">`;
    const attributes = `type="submit" class="secondary" aria-label="${escapeHtml(label)}"`;
    const submit = `<button ${attributes}>${escapeHtml(text)}</button>`;
    return `        <tr>\n${cells.join('')}          <td>${form}${submit}</form></td>\n        </tr>`;
  });
  const actionsHeading = `<th scope="col"><span class="visually-hidden">${escapeHtml(actions)}</span></th>`;
  return `    <table>
      <caption>${escapeHtml(caption)}</caption>
      <thead><tr>${headings}${actionsHeading}</tr></thead>
      <tbody>
${rows.join('\n')}
      </tbody>
    </table>`;
}
