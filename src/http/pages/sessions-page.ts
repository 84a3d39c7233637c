/**
 * `GET /sessions`: where the signed-in user is logged in, with a button to end each session and
 * one to end every other. HTML forms cannot send `DELETE /api/sessions…`, so the buttons post to
 * `/sessions/<id>/end` and `/sessions/end-others`.
 */
import type { SessionView } from '../../sessions/store.js';
import { accountNav } from './account-nav.js';
import { escapeHtml } from './html.js';
import { layout, type Notice } from './layout.js';
import type { PageTexts } from './texts.js';

/** What the sessions page is given: every key, null when it has no value. */
export interface SessionsPageLocals {
  prefix: string;
  texts: PageTexts;
  /** The signed-in user's email. */
  email: string;
  /** The user's live sessions, oldest first, as `GET /api/sessions` lists them (`current`: this one). */
  sessions: SessionView[];
  /** How many sessions a user may have (SERVICE_AUTH_MAX_SESSIONS_PER_USER): a login past it ends the oldest. */
  maxSessions: number;
  /** What was just done: a session ended, the others ended, the password changed. */
  notice: Notice | null;
}

export function sessionsPage(locals: SessionsPageLocals): string {
  const { texts, sessions } = locals;
  const t = texts.sessions;
  const prefix = escapeHtml(locals.prefix);
  const others = sessions.some((session) => !session.current)
    ? `
    <form method="post" action="${prefix}/sessions/end-others">
      <p class="hint" id="end-others-hint">${escapeHtml(t.othersHint)}</p>
      <button type="submit" class="danger" aria-describedby="end-others-hint">${escapeHtml(t.endOthers)}</button>
    </form>`
    : '';
  return layout({
    title: t.title,
    texts,
    notice: locals.notice,
    wide: true,
    body: `${sessionTable(locals)}
    <p class="hint">${escapeHtml(t.limit(locals.maxSessions))}</p>${others}${accountNav(locals.prefix, texts, 'sessions')}`,
  });
}

function sessionTable({ prefix, texts, email, sessions }: SessionsPageLocals): string {
  const t = texts.sessions;
  const c = t.columns;
  const rows = sessions.map((session) => {
    const device = deviceName(session.user_agent, texts);
    const started = minutes(session.created_at);
    const label = session.current ? t.endThisLabel : t.endLabel(device, started);
    return `        <tr>
          <td data-label="${escapeHtml(c.device)}">${escapeHtml(device)}${session.current ? ` <strong>(${escapeHtml(t.thisDevice)})</strong>` : ''}</td>
          <td data-label="${escapeHtml(c.started)}"><time datetime="${escapeHtml(session.created_at)}">${escapeHtml(started)}</time></td>
          <td data-label="${escapeHtml(c.lastSeen)}"><time datetime="${escapeHtml(session.last_seen_at)}">${escapeHtml(minutes(session.last_seen_at))}</time></td>
          <td><form method="post" action="${escapeHtml(prefix)}/sessions/${encodeURIComponent(session.id)}/end"><button type="submit" class="secondary" aria-label="${escapeHtml(label)}">${escapeHtml(session.current ? t.endThis : t.end)}</button></form></td>
        </tr>`;
  });
  return `    <table>
      <caption>${escapeHtml(t.signedInAs(email))}</caption>
      <thead><tr><th scope="col">${escapeHtml(c.device)}</th><th scope="col">${escapeHtml(c.started)}</th><th scope="col">${escapeHtml(c.lastSeen)}</th><th scope="col"><span class="visually-hidden">${escapeHtml(c.actions)}</span></th></tr></thead>
      <tbody>
${rows.join('\n')}
      </tbody>
    </table>`;
}

/** `2026-11-23 09:24`, in UTC as stored: the caption says so. */
function minutes(iso: string): string {
  return iso.slice(0, 16).replace('T', ' ');
}

const BROWSERS: [RegExp, string][] = [
  [/\bEdg(e|A|iOS)?\//, 'Edge'],
  [/\bOPR\//, 'Opera'],
  [/\b(Firefox|FxiOS)\//, 'Firefox'],
  [/\b(HeadlessChrome|Chrome|Chromium|CriOS)\//, 'Chrome'],
  [/\bVersion\/[\d.]+.*\bSafari\//, 'Safari'],
  [/^curl\//, 'curl'],
];
const SYSTEMS: [RegExp, string][] = [
  [/\b(iPhone|iPad|iPod)\b/, 'iOS'],
  [/\bAndroid\b/, 'Android'],
  [/\bCrOS\b/, 'ChromeOS'],
  [/\bWindows\b/, 'Windows'],
  [/\bMac OS X\b|\bMacintosh\b/, 'macOS'],
  [/\bLinux\b/, 'Linux'],
];

/**
 * The User-Agent of the session's login as a person recognises their device ("Firefox on
 * Linux"); one that reads as neither, as it is, shortened; none, as an unknown device.
 */
export function deviceName(userAgent: string | null, texts: PageTexts): string {
  if (!userAgent) return texts.sessions.unknownDevice;
  const browser = BROWSERS.find(([pattern]) => pattern.test(userAgent))?.[1];
  const system = SYSTEMS.find(([pattern]) => pattern.test(userAgent))?.[1];
  if (browser && system) return texts.sessions.device(browser, system);
  return browser ?? (userAgent.length > 60 ? `${userAgent.slice(0, 59)}…` : userAgent);
}
