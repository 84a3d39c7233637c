/**
 * `GET /invitations/accept?token=…`: the page behind the mailed invitation link. Opening it changes
 * nothing (mail scanners follow links). Signed in with the invited address, confirmed: what the
 * invitation is for, and a button whose form posts the token to `POST /api/invitations/accept`.
 * Otherwise it says what to do: log in or register with that address and come back, log out of
 * another account, confirm the address first; that they are a member already; or that the link
 * cannot be used.
 */
import type { OrgView } from '../schemas/org-responses.js';
import { escapeHtml } from './html.js';
import { layout, type Notice } from './layout.js';
import type { PageTexts } from './texts.js';

export type InvitationPageState = 'accept' | 'sign-in' | 'other-account' | 'unconfirmed' | 'member' | 'unusable';

/** What the invitation page is given: every key, null when it has no value. */
export interface InvitationPageLocals {
  prefix: string;
  texts: PageTexts;
  state: InvitationPageState;
  /** The link's token, for the accept form. */
  token: string | null;
  /** The organization and roles the invitation is for, when the link is usable. */
  invitation: { org: OrgView; roles: string[] } | null;
  /** The signed-in user's email, if anyone is signed in. */
  email: string | null;
  /** This page's own path with its token: where logging in or registering comes back to. */
  back: string;
  notice: Notice | null;
}

export function invitationPage(locals: InvitationPageLocals): string {
  const { texts, invitation } = locals;
  const t = texts.invitation;
  const prefix = escapeHtml(locals.prefix);
  const next = encodeURIComponent(locals.back);
  const about = invitation
    ? `    <p><strong>${escapeHtml(t.question(invitation.org.name, invitation.roles.join(', ')))}</strong></p>\n`
    : '';
  let body: string;
  switch (locals.state) {
    case 'accept':
      body = `${about}    <form method="post" action="${prefix}/api/invitations/accept">
      <input type="hidden" name="token" value="${escapeHtml(locals.token)}">
      <button type="submit">${escapeHtml(t.accept)}</button>
    </form>`;
      break;
    case 'sign-in':
      body =
        `${about}    <p>${escapeHtml(t.signIn)}</p>
    <p class="actions"><a href="${prefix}/login?next=${next}">${escapeHtml(t.logIn)}</a> <a href="` +
        `${prefix}/register?next=${next}">${escapeHtml(t.register)}</a></p>`;
      break;
    case 'other-account':
      body = `${about}    <p>${escapeHtml(t.otherAccount(locals.email ?? ''))}</p>
    <form method="post" action="${prefix}/logout"><button type="submit" class="secondary">${escapeHtml(t.logOut)}</button></form>`;
      break;
    case 'unconfirmed':
      body = `${about}    <p>${escapeHtml(t.unconfirmed)}</p>`;
      break;
    case 'member':
      body = `${about}    <p>${escapeHtml(t.member)}</p>
    <p><a href="${prefix}/orgs/${encodeURIComponent(invitation?.org.slug ?? '')}">${escapeHtml(t.openOrg)}</a></p>`;
      break;
    case 'unusable':
      body = `    <p>${escapeHtml(t.unusable)}</p>`;
      break;
  }
  return layout({ title: t.title, texts, notice: locals.notice, body });
}
