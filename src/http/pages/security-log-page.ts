/**
 * `GET /security-log`: what happened to the signed-in user's account, newest first, 50 a page,
 * like a code host's security log: logins (refused ones too), password and address changes,
 * tokens, sessions, roles. Each row says what, when, from which address and on which device.
 */
import type { SecurityEvent } from '../actions/security-log.js';
import { accountNav } from './account-nav.js';
import { escapeHtml } from './html.js';
import { layout } from './layout.js';
import { deviceName } from './sessions-page.js';
import type { PageTexts } from './texts.js';

/** What the security log page is given: every key, null when it has no value. */
export interface SecurityLogPageLocals {
  prefix: string;
  texts: PageTexts;
  /** The signed-in user's email. */
  email: string;
  /** The user's records on this page, newest first, as `GET /api/security-log` lists them. */
  events: SecurityEvent[];
  /** The `before` of the next (older) page, or null on the last. */
  next: number | null;
}

export function securityLogPage(locals: SecurityLogPageLocals): string {
  const { texts, events, next } = locals;
  const t = texts.securityLog;
  const older =
    next === null
      ? ''
      : `\n    <p><a href="${escapeHtml(locals.prefix)}/security-log?before=${next}" ` +
        `rel="next">${escapeHtml(t.older)}</a></p>`;
  const body = events.length === 0 ? `    <p>${escapeHtml(t.empty)}</p>` : eventTable(locals);
  return layout({
    title: t.title,
    texts,
    notice: null,
    wide: true,
    body: `${body}${older}${accountNav(locals.prefix, texts, 'security-log')}`,
  });
}

function eventTable({ texts, email, events }: SecurityLogPageLocals): string {
  const t = texts.securityLog;
  const c = t.columns;
  const rows = events.map((event) => {
    const when = event.at.slice(0, 16).replace('T', ' ');
    const outcome = event.outcome === 'success' ? t.succeeded : t.failed(event.reason);
    return `        <tr${event.outcome === 'failure' ? ' class="failure"' : ''}>
          <td data-label="${escapeHtml(c.when)}"><time datetime="${escapeHtml(event.at)}">${escapeHtml(when)}</time></td>
          <td data-label="${escapeHtml(c.what)}">${escapeHtml(t.events[event.type])}</td>
          <td data-label="${escapeHtml(c.outcome)}">${escapeHtml(outcome)}</td>
          <td data-label="${escapeHtml(c.from)}">${escapeHtml(event.ip ?? '')}</td>
          <td data-label="${escapeHtml(c.device)}">${escapeHtml(event.user_agent === null ? '' : deviceName(event.user_agent, texts))}</td>
        </tr>`;
  });
  return (
    `    <table>
      <caption>${escapeHtml(t.caption(email))}</caption>
      <thead><tr><th scope="col">${escapeHtml(c.when)}</th><th scope="col">${escapeHtml(c.what)}</th><th ` +
    `scope="col">${escapeHtml(c.outcome)}</th><th scope="col">${escapeHtml(c.from)}</th><th scope="col">` +
    `${escapeHtml(c.device)}</th></tr></thead>
      <tbody>
${rows.join('\n')}
      </tbody>
    </table>`
  );
}
