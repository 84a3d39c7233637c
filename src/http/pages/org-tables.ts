/**
 * The organization page's tables: its members, with the role choices and the remove button the
 * signed-in user's ability allows for each, and its pending invitations, with revoking.
 */
import { escapeHtml } from './html.js';
import type { OrgPageLocals } from './org-pages.js';

export function memberTable({ texts, members, assignable }: OrgPageLocals, base: string): string {
  if (!members) return '';
  const t = texts.org;
  const c = t.columns;
  const rows = members.map((member) => {
    const roles = member.mayChangeRoles
      ? `<form method="post" action="${base}/members/${member.user_id}/roles">
            <fieldset><legend class="visually-hidden">${escapeHtml(t.rolesLegend(member.email))}</legend>` +
        `${roleChoices(
          `member-${member.user_id}`,
          [...new Set([...assignable, ...member.roles])],
          member.roles,
          assignable,
        )}</fieldset>
            <button type="submit" class="secondary" aria-label="${escapeHtml(t.saveRolesLabel(member.email))}">` +
        `${escapeHtml(t.saveRoles)}</button>
          </form>`
      : escapeHtml(member.roles.join(', ') || texts.orgs.noRoles);
    const remove = member.mayRemove
      ? `<form method="post" action="${base}/members/${member.user_id}/remove"><button ` +
        `type="submit" class="secondary" aria-label="${escapeHtml(t.removeLabel(member.email))}">` +
        `${escapeHtml(t.remove)}</button></form>`
      : '';
    return (
      `        <tr>
          <td data-label="${escapeHtml(c.email)}">` +
      `${escapeHtml(member.email)}${member.self ? ` <strong>(${escapeHtml(t.you)})</strong>` : ''}</td>
          <td data-label="${escapeHtml(c.roles)}">${roles}</td>
          <td data-label="${escapeHtml(c.joined)}"><time datetime="${escapeHtml(member.created_at)}">` +
      `${escapeHtml(member.created_at.slice(0, 10))}</time></td>
          <td>${remove}</td>
        </tr>`
    );
  });
  return (
    `    <h2 id="members-heading">${escapeHtml(t.membersHeading)}</h2>
    <table aria-labelledby="members-heading">
      <thead><tr><th scope="col">${escapeHtml(c.email)}</th><th scope="col">${escapeHtml(c.roles)}</th>` +
    `<th scope="col">${escapeHtml(c.joined)}</th><th scope="col"><span class="visually-hidden">` +
    `${escapeHtml(c.actions)}</span></th></tr></thead>
      <tbody>
${rows.join('\n')}
      </tbody>
    </table>\n`
  );
}

/**
 * A checkbox per role. One the user may not assign is shown as it is, disabled; when it is held, a
 * hidden field keeps it in what the form sends (a disabled checkbox sends nothing).
 */
export function roleChoices(
  idPrefix: string,
  roles: readonly string[],
  checked: readonly string[],
  assignable: readonly string[],
): string {
  return `<div class="choices">${roles
    .map((role) => {
      const id = `${idPrefix}-role-${role}`;
      const held = checked.includes(role);
      const free = assignable.includes(role);
      const keep = held && !free ? `<input type="hidden" name="roles" value="${escapeHtml(role)}">` : '';
      return (
        `<label for="${escapeHtml(id)}"><input type="checkbox" id="${escapeHtml(id)}" name="roles" ` +
        `value="${escapeHtml(role)}"${held ? ' checked' : ''}${free ? '' : ' disabled'}>` +
        `${escapeHtml(role)}</label>${keep}`
      );
    })
    .join('')}</div>`;
}

export function invitationTable({ texts, invitations }: OrgPageLocals, base: string): string {
  if (!invitations) return '';
  const t = texts.org;
  const heading = `    <h2 id="invitations-heading">${escapeHtml(t.invitationsHeading)}</h2>\n`;
  if (invitations.length === 0) return `${heading}    <p>${escapeHtml(t.noInvitations)}</p>\n`;
  const c = t.invitationColumns;
  const rows = invitations.map(
    (invitation) =>
      `        <tr>
          <td data-label="${escapeHtml(c.email)}">${escapeHtml(invitation.email)}</td>
          <td data-label="${escapeHtml(c.roles)}">${escapeHtml(invitation.roles.join(', '))}</td>
          <td data-label="${escapeHtml(c.expires)}"><time datetime="${escapeHtml(invitation.expires_at)}">` +
      `${escapeHtml(invitation.expires_at.slice(0, 10))}</time></td>
          <td>${
            invitation.mayRevoke
              ? `<form method="post" action="${base}/invitations/${invitation.id}/revoke"><button type="submit" ` +
                `class="secondary" aria-label="${escapeHtml(t.revokeLabel(invitation.email))}">` +
                `${escapeHtml(t.revoke)}</button></form>`
              : ''
          }</td>
        </tr>`,
  );
  return (
    `${heading}    <table aria-labelledby="invitations-heading">
      <thead><tr><th scope="col">${escapeHtml(c.email)}</th><th scope="col">${escapeHtml(c.roles)}</th>` +
    `<th scope="col">${escapeHtml(c.expires)}</th><th scope="col"><span class="visually-hidden">` +
    `${escapeHtml(c.actions)}</span></th></tr></thead>
      <tbody>
${rows.join('\n')}
      </tbody>
    </table>\n`
  );
}
