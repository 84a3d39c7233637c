/**
 * Who may use the admin console, by CASL rules (docs/admin.md lists them):
 *
 * - Each part of it needs its action on every subject of its type, a rule without conditions
 *   (reach.ts): `read User` for the users, `read Organization` for the organizations, `read
 *   AuditRecord` for the audit log, `read Policy` for the policy explorer. A rule that lets a
 *   member read their own user row does not open the console. `manage all` opens every part.
 * - Each change to a user is `update` on that `User` (as `toJSON()` shows it) with the field the
 *   form sends: `disabled`, `roles`, `sessions`, `tokens`, `mfa`; giving or taking away a role
 *   also needs `assign` on `Role { name }`. These are the guards' own `require({ action, subject,
 *   load, fields: 'body' })`, as an application's JSON routes use them.
 * - A session only: an API token is refused (403), whatever it may do.
 *
 * The gate is a guard built by the guards themselves (`guard(check)`): the same credentials, the
 * same same-site rule for posts, the same 401 or login redirect, the same 403.
 */
import { subject } from '@casl/ability';
import type { Request, RequestHandler } from 'express';
import type { Credentials } from '../../../authentication/credentials.js';
import type { AppAbility } from '../../../authorization/ability-types.js';
import { decide } from '../../../authorization/decision.js';
import { reachOf } from '../../../authorization/reach.js';
import { withAuditContext, auditContext } from '../../../audit/context.js';
import { AuthError } from '../../../errors.js';
import { ADMIN_TEXTS } from './texts.js';

export type Section = 'users' | 'orgs' | 'audit' | 'policy';

/** What each part of the console needs, on every subject of the type. */
export const SECTION_PERMISSIONS: Record<Section, { action: string; subject: string }> = {
  users: { action: 'read', subject: 'User' },
  orgs: { action: 'read', subject: 'Organization' },
  audit: { action: 'read', subject: 'AuditRecord' },
  policy: { action: 'read', subject: 'Policy' },
};

export const SECTIONS = Object.keys(SECTION_PERMISSIONS) as Section[];

/** The fields of `update User` each change on the user page sends (and so needs). */
export const USER_FIELDS = ['disabled', 'roles', 'sessions', 'tokens', 'mfa'] as const;
export type UserField = (typeof USER_FIELDS)[number];

export interface GuardMaker {
  guard(check: (req: Request, credentials: Credentials) => AuthError | undefined): RequestHandler;
}

/** The parts of the console this ability opens. */
export function openSections(ability: AppAbility): Section[] {
  return SECTIONS.filter((section) => {
    const { action, subject } = SECTION_PERMISSIONS[section];
    return reachOf(ability, action, subject) === 'all';
  });
}

/** The guard of a part of the console (or, without one, of its home page: any part will do). */
export function consoleGate(guards: GuardMaker, section?: Section): RequestHandler {
  return guards.guard((req, credentials) => {
    if (credentials.method !== 'session') return new AuthError('forbidden', ADMIN_TEXTS.refusals.session);
    const open = openSections(req.ability!);
    if (section ? !open.includes(section) : open.length === 0)
      return new AuthError('forbidden', section ? ADMIN_TEXTS.refusals.section : ADMIN_TEXTS.refusals.none);
    return undefined;
  });
}

/** After the gate: every audit record written while the request acts names the operator (`detail.by`). */
export const auditedAsOperator: RequestHandler = (req, _res, next) => {
  withAuditContext({ ...auditContext(), by: req.user!.id }, next);
};

/** Whether the ability lets the operator make this change to this user (what the page offers), decided as the guard decides. */
export function mayChange(ability: AppAbility, user: object, field: UserField): boolean {
  return decide(ability, 'update', subject('User', { ...user }), field).allowed;
}

/** Whether the ability lets the operator give or take away this role. */
export function mayAssign(ability: AppAbility, role: string): boolean {
  return decide(ability, 'assign', subject('Role', { name: role })).allowed;
}
