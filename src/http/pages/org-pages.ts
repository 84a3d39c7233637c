/**
 * The organization pages: `GET /orgs` (the signed-in user's organizations with their roles there,
 * and a form to create one) and `GET /orgs/<org>` (the members and their roles, with what the
 * user's ability there allows: changing roles, removing, the pending invitations with revoking,
 * inviting; and leaving). HTML forms cannot send PATCH or DELETE, so the buttons post to routes of
 * the pages' own (org-routes.ts); creating and inviting post to the JSON API's paths.
 */
import type { InvitationView, MemberView, MyOrgView, OrgView } from '../schemas/org-responses.js';
import { accountNav } from './account-nav.js';
import { renderFields, type FieldErrors } from './fields.js';
import { escapeHtml } from './html.js';
import { layout, type Notice } from './layout.js';
import { invitationTable, memberTable, roleChoices } from './org-tables.js';
import type { PageTexts } from './texts.js';

/** What `/orgs` is given: every key, null when it has no value. */
export interface OrgsPageLocals {
  prefix: string;
  texts: PageTexts;
  /** The signed-in user's email. */
  email: string;
  /** As `GET /api/orgs` lists them. */
  orgs: MyOrgView[];
  /** Whether the user may create one (SERVICE_AUTH_ORG_CREATION). */
  mayCreate: boolean;
  notice: Notice | null;
  errors: FieldErrors | null;
  /** What the creation form sent, shown again when it was refused. */
  values: { name: string | null; slug: string | null } | null;
}

/** A member as the page shows them, with what the signed-in user may do to them. */
export interface MemberRow extends MemberView {
  /** The signed-in user. */
  self: boolean;
  /** Their roles may be changed: the checkboxes are enabled for `assignable` roles. */
  mayChangeRoles: boolean;
  /** They may be removed (someone else; leaving is a form of its own). */
  mayRemove: boolean;
}

/** An invitation as the page shows it. */
export interface InvitationRow extends InvitationView {
  mayRevoke: boolean;
}

/** What `/orgs/<org>` is given: every key, null when it has no value. */
export interface OrgPageLocals {
  prefix: string;
  texts: PageTexts;
  email: string;
  org: OrgView;
  /** The signed-in user's roles there. */
  roles: string[];
  /** Null when the user may not read the members. */
  members: MemberRow[] | null;
  /** The organization roles the user may grant, in the order the application defined them. */
  assignable: string[];
  /** Null when the user may not read the invitations. */
  invitations: InvitationRow[] | null;
  /** Whether the invite form is shown (`create Invitation`, and a role to assign). */
  mayInvite: boolean;
  notice: Notice | null;
  errors: FieldErrors | null;
  /** What the invite form sent, shown again when it was refused. */
  values: { email: string | null; roles: string[] } | null;
}

export function orgsPage(locals: OrgsPageLocals): string {
  const { texts } = locals;
  const t = texts.orgs;
  const prefix = escapeHtml(locals.prefix);
  const values = locals.values ?? { name: null, slug: null };
  let create = `    <p>${escapeHtml(t.creationClosed)}</p>`;
  if (locals.mayCreate) {
    const { fields, summary } = renderFields(
      [
        { name: 'name', label: t.name, value: values.name ?? '', attributes: 'required maxlength="100"' },
        {
          name: 'slug',
          label: t.slug,
          value: values.slug ?? '',
          hint: t.slugHint,
          attributes: 'maxlength="48" pattern="[a-z0-9-]{2,48}" autocomplete="off" spellcheck="false"',
        },
      ],
      locals.errors,
      texts,
    );
    create = `${summary}    <form method="post" action="${prefix}/api/orgs" aria-labelledby="create-heading" novalidate>${fields}
      <button type="submit">${escapeHtml(t.submit)}</button>
    </form>`;
  }
  return layout({
    title: t.title,
    texts,
    notice: locals.notice,
    wide: true,
    body: `${orgTable(locals)}
    <h2 id="create-heading">${escapeHtml(t.createHeading)}</h2>
${create}${accountNav(locals.prefix, texts, 'orgs')}`,
  });
}

function orgTable({ prefix, texts, email, orgs }: OrgsPageLocals): string {
  const t = texts.orgs;
  if (orgs.length === 0) return `    <p>${escapeHtml(t.none)}</p>`;
  const c = t.columns;
  const rows = orgs.map(
    (org) =>
      `        <tr>
          <td data-label="${escapeHtml(c.name)}"><a href="${escapeHtml(prefix)}/orgs/` +
      `${encodeURIComponent(org.slug)}">${escapeHtml(org.name)}</a></td>
          <td data-label="${escapeHtml(c.slug)}">${escapeHtml(org.slug)}</td>
          <td data-label="${escapeHtml(c.roles)}">${escapeHtml(org.roles.join(', ') || t.noRoles)}</td>
        </tr>`,
  );
  return (
    `    <table>
      <caption>${escapeHtml(t.signedInAs(email))}</caption>
      <thead><tr><th scope="col">${escapeHtml(c.name)}</th><th scope="col">${escapeHtml(c.slug)}</th><th ` +
    `scope="col">${escapeHtml(c.roles)}</th></tr></thead>
      <tbody>
${rows.join('\n')}
      </tbody>
    </table>`
  );
}

export function orgPage(locals: OrgPageLocals): string {
  const { texts, org } = locals;
  const t = texts.org;
  const base = `${escapeHtml(locals.prefix)}/orgs/${encodeURIComponent(org.slug)}`;
  const self = locals.members?.find((member) => member.self);
  const leave = self
    ? `
    <h2 id="leave-heading">${escapeHtml(t.leaveHeading)}</h2>
    <form method="post" action="${base}/members/${self.user_id}/remove" aria-labelledby="leave-heading">
      <p class="hint" id="leave-hint">${escapeHtml(t.leaveHint)}</p>
      <button type="submit" class="danger" aria-describedby="leave-hint">${escapeHtml(t.leave)}</button>
    </form>`
    : '';
  return layout({
    title: t.title(org.name),
    texts,
    notice: locals.notice,
    wide: true,
    body: `    <p>${escapeHtml(t.slugLine(org.slug))}</p>
    <p>${escapeHtml(t.yourRoles(locals.roles.join(', ') || texts.orgs.noRoles))}</p>
${memberTable(locals, base)}${invitationTable(locals, base)}${inviteForm(locals)}${leave}
    <p><a href="${escapeHtml(locals.prefix)}/orgs">${escapeHtml(t.back)}</a></p>`,
  });
}

function inviteForm(locals: OrgPageLocals): string {
  if (!locals.mayInvite) return '';
  const { texts, org, assignable } = locals;
  const t = texts.org;
  const values = locals.values ?? { email: null, roles: [] };
  const { fields, summary } = renderFields(
    [
      {
        name: 'email',
        label: t.inviteEmail,
        type: 'email',
        value: values.email ?? '',
        attributes: 'required autocomplete="off"',
      },
    ],
    locals.errors,
    texts,
  );
  const rolesError = locals.errors?.['roles'];
  const error = rolesError
    ? `<div class="field-error" id="roles-error"><span class="visually-hidden">` +
      `${escapeHtml(texts.errorPrefix)} </span>${escapeHtml(rolesError.message)}</div>`
    : '';
  const summaryAll =
    summary ||
    (rolesError ? `    <div class="error-summary" role="alert"><p>${escapeHtml(rolesError.message)}</p></div>\n` : '');
  return (
    `    <h2 id="invite-heading">${escapeHtml(t.inviteHeading)}</h2>
${summaryAll}    <form method="post" action="${escapeHtml(locals.prefix)}/api/orgs/` +
    `${encodeURIComponent(org.slug)}/invitations" aria-labelledby="invite-heading" novalidate>${fields}
      <fieldset class="${rolesError ? 'invalid' : ''}"` +
    `${rolesError ? ' aria-describedby="roles-error"' : ''}><legend>${escapeHtml(t.inviteRoles)}</legend>` +
    `${error}${roleChoices('invite', assignable, values.roles, assignable)}</fieldset>
      <button type="submit">${escapeHtml(t.inviteSubmit)}</button>
    </form>\n`
  );
}
