/**
 * `GET /admin/users/<id>`: one user, and what the operator's rules let them do to the account.
 * Each change is a form of its own posting to `/admin/users/<id>/<what>`; a change the rules do
 * not allow is not offered (and refused if posted anyway).
 */
import type { PublicUser } from '../../../users/auth-user.js';
import { escapeHtml } from '../html.js';
import type { UserField } from './access.js';
import { userState } from './users-page.js';
import { adminLayout, timeHtml, type AdminPageBase } from './shell.js';
import { ADMIN_TEXTS } from './texts.js';

export interface UserPageLocals extends AdminPageBase {
  user: PublicUser;
  sessions: number;
  tokens: number;
  /** The changes the operator may make to this user. */
  may: Record<UserField, boolean>;
  /** Roles the operator may give this user: defined, assignable, not held. */
  assignable: string[];
  /** Roles held that the operator may take away. */
  removable: string[];
  /** Whether the operator may act as this user (the `impersonate` rule; never an is_admin user, nor themselves). */
  mayImpersonate: boolean;
}

export function userPage(locals: UserPageLocals): string {
  const t = ADMIN_TEXTS.user;
  const { user } = locals;
  const f = t.facts;
  const facts = `    <dl>
      <dt>${escapeHtml(f.id)}</dt><dd>${escapeHtml(user.id)}</dd>
      <dt>${escapeHtml(f.email)}</dt><dd>${escapeHtml(user.email)}</dd>
      <dt>${escapeHtml(f.created)}</dt><dd>${timeHtml(user.created_at)}</dd>
      <dt>${escapeHtml(f.state)}</dt><dd>${escapeHtml(userState(user))}</dd>
      <dt>${escapeHtml(f.sessions)}</dt><dd>${escapeHtml(locals.sessions)}</dd>
      <dt>${escapeHtml(f.tokens)}</dt><dd>${escapeHtml(locals.tokens)}</dd>
    </dl>`;
  const body = [facts, accountSection(locals), rolesSection(locals), accessSection(locals)].join('\n');
  return adminLayout(locals, 'users', t.title(user.email), body);
}

function base({ prefix, user }: UserPageLocals): string {
  return `${prefix}/admin/users/${user.id}`;
}

/** A form of one button posting `name=value` to the user's `path`. */
function button(
  locals: UserPageLocals,
  path: string,
  name: string,
  value: string,
  label: string,
  options: { danger?: boolean; hint?: string } = {},
): string {
  const hintId = options.hint ? `${path.replace(/\W/g, '-')}-hint` : '';
  const hint = options.hint ? `<p class="hint" id="${hintId}">${escapeHtml(options.hint)}</p>` : '';
  return (
    `      <form method="post" action="${escapeHtml(`${base(locals)}/${path}`)}">${hint}<input ` +
    `type="hidden" name="${escapeHtml(name)}" value="${escapeHtml(value)}"><button ` +
    `type="submit"${options.danger ? ' class="danger"' : ''}` +
    `${hintId ? ` aria-describedby="${hintId}"` : ''}>${escapeHtml(label)}</button></form>`
  );
}

function accountSection(locals: UserPageLocals): string {
  const t = ADMIN_TEXTS.user;
  const forms = locals.may.disabled
    ? locals.user.disabled
      ? button(locals, 'disabled', 'disabled', 'false', t.enable)
      : button(locals, 'disabled', 'disabled', 'true', t.disable, { danger: true, hint: t.disableHint })
    : `      <p>${escapeHtml(t.notAllowed)}</p>`;
  const actAs = locals.mayImpersonate
    ? `\n${button(locals, 'impersonate', 'user_id', String(locals.user.id), t.impersonate)}`
    : '';
  return `    <h2>${escapeHtml(t.account)}</h2>\n${forms}${actAs}`;
}

function rolesSection(locals: UserPageLocals): string {
  const t = ADMIN_TEXTS.user;
  const held = locals.user.roles;
  const rows = held.map((role) => {
    const remove =
      locals.may.roles && locals.removable.includes(role)
        ? `<form method="post" action="${escapeHtml(`${base(locals)}/roles/remove`)}"><input ` +
          `type="hidden" name="roles" value="${escapeHtml(role)}"><button type="submit" ` +
          `class="secondary" ` +
          `aria-label="${escapeHtml(t.removeRole(role))}">${escapeHtml(t.remove)}</button></form>`
        : '';
    return `        <li>${escapeHtml(role)} ${remove}</li>`;
  });
  const list = held.length ? `      <ul>\n${rows.join('\n')}\n      </ul>` : `      <p>${escapeHtml(t.noRoles)}</p>`;
  let add = '';
  if (locals.may.roles) {
    add = locals.assignable.length
      ? `      <form method="post" action="${escapeHtml(`${base(locals)}/roles/add`)}">
        <div class="field"><label for="role">${escapeHtml(t.roleLabel)}</label>
        <select id="role" name="roles">${locals.assignable.map((role) => `<option>${escapeHtml(role)}</option>`).join('')}</select></div>
        <button type="submit">${escapeHtml(t.addButton)}</button>
      </form>`
      : `      <p>${escapeHtml(t.noAssignable)}</p>`;
  }
  return `    <h2>${escapeHtml(t.rolesHeading)}</h2>\n${list}\n${add}`;
}

function accessSection(locals: UserPageLocals): string {
  const t = ADMIN_TEXTS.user;
  const forms = [
    locals.may.sessions && button(locals, 'sessions', 'sessions', 'end', t.endSessions),
    locals.may.tokens && button(locals, 'tokens', 'tokens', 'revoke', t.revokeTokens),
    locals.may.mfa && button(locals, 'mfa', 'mfa', 'reset', t.resetMfa, { danger: true, hint: t.resetMfaHint }),
  ].filter((form): form is string => Boolean(form));
  return (
    `    <h2>${escapeHtml(t.access)}</h2>\n` +
    `${
      forms.length
        ? `    <div class="actions">\n${forms.join('\n')}\n    </div>`
        : `    <p>${escapeHtml(t.notAllowed)}</p>`
    }`
  );
}
