/**
 * `GET /sessions`: where the signed-in user is logged in, with a button to end each session and
 * one to end every other. HTML forms cannot send `DELETE /api/sessions…`, so the buttons post to
 * `/sessions/<id>/end` and `/sessions/end-others`.
 */
import type { SessionView } from '../../sessions/store.js';
import { accountListPage } from './account-list.js';
import { escapeHtml } from './html.js';
import type { Notice } from './layout.js';
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

export function sessionsPage({ prefix, texts, email, sessions, maxSessions, notice }: SessionsPageLocals): string {
  const t = texts.sessions;
  const c = t.columns;
  const others = sessions.some((session) => !session.current)
    ? `
    <form method="post" action="${escapeHtml(prefix)}/sessions/end-others">
      <p class="hint" id="end-others-hint">${escapeHtml(t.othersHint)}</p>
      <button type="submit" class="danger" aria-describedby="end-others-hint">${escapeHtml(t.endOthers)}</button>
    </form>`
    : '';
  const time = (iso: string): string => `<time datetime="${escapeHtml(iso)}">${escapeHtml(minutes(iso))}</time>`;
  const device = (session: SessionView): string => deviceName(session.user_agent, texts);
  // Always a table: the session that asks is in it.
  return accountListPage({
    prefix,
    texts,
    notice,
    page: 'sessions',
    title: t.title,
    items: sessions,
    caption: t.signedInAs(email),
    columns: [
      {
        heading: c.device,
        cell: (session) =>
          `${escapeHtml(device(session))}${session.current ? ` <strong>(${escapeHtml(t.thisDevice)})</strong>` : ''}`,
      },
      { heading: c.started, cell: (session) => time(session.created_at) },
      { heading: c.lastSeen, cell: (session) => time(session.last_seen_at) },
    ],
    actions: c.actions,
    button: (session) => ({
      path: `/sessions/${encodeURIComponent(session.id)}/end`,
      text: session.current ? t.endThis : t.end,
      label: session.current ? t.endThisLabel : t.endLabel(device(session), minutes(session.created_at)),
    }),
    after: `\n    <p class="hint">${escapeHtml(t.limit(maxSessions))}</p>${others}`,
  });
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
