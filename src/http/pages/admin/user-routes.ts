/**
 * The users' part of the console: the list, a user's page, and its forms' posts. Each post is a
 * guard (`require`, as an application's JSON routes use it) on the user with the field it
 * changes, then the same service call the CLI and the JSON API make, then a redirect (303) to the
 * user's page saying what was done.
 */
import { subject } from '@casl/ability';
import type { Request, RequestHandler, Response } from 'express';
import type { RequireOptions } from '../../../authorization/guards.js';
import { AuthError } from '../../../errors.js';
import { mayChangeAdminAccount, protectAdminAccount } from '../../../users/admin-accounts.js';
import type { PublicUser } from '../../../users/auth-user.js';
import type { Endpoint } from '../../endpoints/endpoint.js';
import type { GuardKit } from '../../endpoints/guard-kit.js';
import { EndpointRouter } from '../../endpoints/mount.js';
import { parseBody } from '../../schemas/parse.js';
import { mayAssign, mayChange, USER_FIELDS, type UserField } from './access.js';
import { parseQuery, roleForm, userListQuery } from './query.js';
import type { AdminPageBase } from './shell.js';
import { sendAdminPage } from './shell.js';
import { ADMIN_TEXTS } from './texts.js';
import { userPage } from './user-page.js';
import { usersPage } from './users-page.js';
import type { AdminDeps } from './routes.js';
import {
  adminImpersonateForm,
  adminUser,
  adminUsers,
  addRoleForm,
  disabledForm,
  mfaForm,
  removeRoleForm,
  sessionsForm,
  tokensForm,
} from './user-endpoints.js';

const PAGE_SIZE = 25;

export function userRoutes(deps: AdminDeps, kit: GuardKit, base: (req: Request) => AdminPageBase): EndpointRouter {
  const { users, guards } = deps;
  const routes = new EndpointRouter(kit);
  const prefix = deps.config.urlPrefix;

  routes.on(adminUsers, async (req, res) => {
    const { page, email } = parseQuery(userListQuery, req);
    const found = await users.search({ email, offset: (page - 1) * PAGE_SIZE, limit: PAGE_SIZE + 1 });
    const html = usersPage({
      ...base(req),
      users: found.slice(0, PAGE_SIZE).map((user) => user.toJSON()),
      page,
      hasNext: found.length > PAGE_SIZE,
      search: email,
    });
    sendAdminPage(res, 200, html);
  });

  /** The user of the URL as a subject (`toJSON()`), or null for an id that names nobody. */
  const load = async (req: Request): Promise<PublicUser | null> => {
    const text = String(req.params['id']);
    if (!/^[1-9]\d{0,14}$/.test(text)) return null;
    return (await users.findById(Number(text)))?.toJSON() ?? null;
  };
  const userOf = (req: Request) => req.resource as PublicUser;

  routes.on(adminUser, [
    guards.require({ action: 'read', subject: 'User', load }),
    async (req, res) => {
      await showUser(req, res, userOf(req), req.query['done']);
    },
  ]);

  const showUser = async (req: Request, res: Response, user: PublicUser, done: unknown) => {
    const ability = req.ability!;
    const [sessions, tokens] = await Promise.all([deps.sessions.list(user.id), deps.tokens.list({ user: user.id })]);
    const may = Object.fromEntries(USER_FIELDS.map((field) => [field, mayChange(ability, user, field)])) as Record<
      UserField,
      boolean
    >;
    // An is_admin account is disabled, loses a role, its sessions, tokens or second factor, only by an
    // is_admin operator (users/admin-accounts.ts; the posts are refused alike).
    const protectedAccount = !mayChangeAdminAccount(req.user!, user);
    if (protectedAccount)
      Object.assign(may, { sessions: false, tokens: false, mfa: false }, !user.disabled && { disabled: false });
    // The roles that exist: those a definition names, then those only the database has (created on purpose).
    const existing = [...new Set([...deps.roleRules.names(), ...(await deps.roles.list()).map((role) => role.name)])];
    const assignable = existing.filter((role) => !user.roles.includes(role) && mayAssign(ability, role));
    const removable = protectedAccount ? [] : user.roles.filter((role) => mayAssign(ability, role));
    const mayImpersonate =
      !user.is_admin && user.id !== req.user!.id && ability.can('impersonate', subject('User', { ...user }));
    const text =
      typeof done === 'string' && Object.hasOwn(ADMIN_TEXTS.user.done, done) ? ADMIN_TEXTS.user.done[done]! : null;
    const notice = text ? { kind: 'info' as const, text } : null;
    sendAdminPage(
      res,
      200,
      userPage({
        ...base(req),
        notice,
        user,
        sessions: sessions.length,
        tokens: tokens.length,
        may,
        assignable,
        removable,
        mayImpersonate,
      }),
    );
  };

  /**
   * A change to the user: `update User` on the field the form sends (and only it), then the work.
   * `before` runs ahead of the user's guard (which leaves the user in `req.resource`), `after` behind it.
   */
  type Work = (req: Request, user: PublicUser) => Promise<string>;
  type Around = { before?: RequestHandler[]; after?: RequestHandler[] };
  const change = (form: Endpoint, field: UserField, work: Work, more: Around = {}): void => {
    const allowed: RequireOptions<PublicUser> = { action: 'update', subject: 'User', load, fields: 'body' };
    routes.on(form, [
      requireField(field),
      ...(more.before ?? []),
      guards.require(allowed),
      ...(more.after ?? []),
      async (req, res) => {
        const done = await work(req, userOf(req));
        res.redirect(303, `${prefix}/admin/users/${userOf(req).id}?done=${done}`);
      },
    ]);
  };

  change(disabledForm, 'disabled', async (req, user) => {
    const value: unknown = req.body.disabled;
    if (value !== 'true' && value !== 'false')
      throw new AuthError('bad_request', 'disabled is true or false', [
        { field: 'disabled', message: 'must be true or false' },
      ]);
    const disable = value === 'true';
    if (disable) await users.disable(user.id, req.user!);
    else await users.enable(user.id);
    return disable ? 'disabled' : 'enabled';
  });

  // The assign rule of the CLI (`auth add-role` without --force), decided by the roles' service:
  // a role that exists may be given (one a definition names, or one created on purpose); a name
  // that is neither, most likely a typo, is refused (422 unknown_role). Giving or taking one away
  // needs `assign` on it.
  const assignable: RequestHandler = async (req, _res, next) => {
    const { roles: role } = parseBody(roleForm, req);
    if (!userOf(req).roles.includes(role) && (await deps.roles.standing(role)) === 'unknown') {
      throw new AuthError(
        'unknown_role',
        `No role is named ${JSON.stringify(role)}: no definition names it and it was never created`,
      );
    }
    next();
  };
  const assign = guards.require({
    action: 'assign',
    subject: 'Role',
    load: (req) => ({ name: parseBody(roleForm, req).roles }),
  });
  const roleChecks = { before: [assign], after: [assignable] };
  change(
    addRoleForm,
    'roles',
    async (req, user) => {
      const role = parseBody(roleForm, req).roles;
      await users.addRole(user.id, role);
      // A role no definition gives rules to is given, and the page says it grants nothing yet.
      return (await deps.roles.standing(role)) === 'defined' ? 'roleAdded' : 'roleAddedUndefined';
    },
    roleChecks,
  );
  change(
    removeRoleForm,
    'roles',
    async (req, user) => {
      await users.removeRole(user.id, parseBody(roleForm, req).roles, req.user!);
      return 'roleRemoved';
    },
    roleChecks,
  );

  change(sessionsForm, 'sessions', async (req, user) => {
    protectAdminAccount(req.user!, user, 'end the sessions of');
    await deps.sessions.endAllBut(user.id, undefined);
    return 'sessions';
  });
  // One by one, as `DELETE /api/tokens/<id>` revokes each (a record each); a user has few (the token cap).
  change(tokensForm, 'tokens', async (req, user) => {
    protectAdminAccount(req.user!, user, 'revoke the tokens of');
    for (const token of await deps.tokens.list({ user: user.id })) await deps.tokens.revoke(token.id, user.id);
    return 'tokens';
  });
  // Acting as the user: the impersonation service decides (the rule on the target, never an
  // is_admin target, a session only) and answers its refusals; the browser then goes home as them.
  routes.on(adminImpersonateForm, async (req, res) => {
    const target = await load(req);
    if (!target) throw new AuthError('not_found', 'No such user');
    await deps.impersonation.start(req, res, target.id);
    res.redirect(303, '/');
  });
  change(mfaForm, 'mfa', async (req, user) => {
    protectAdminAccount(req.user!, user, 'reset the second factor of');
    await deps.secondFactors.reset(user.id);
    return 'mfa';
  });

  return routes;
}

/**
 * The form names the field it changes, and nothing else: so that `require({ fields: 'body' })`
 * checks exactly that field. A body without it (or with more) is a 400.
 */
function requireField(field: UserField): RequestHandler {
  return (req, _res, next) => {
    const body: unknown = req.body;
    const keys = body !== null && typeof body === 'object' ? Object.keys(body) : [];
    if (keys.length !== 1 || keys[0] !== field || typeof (body as Record<string, unknown>)[field] !== 'string') {
      throw new AuthError('bad_request', `The form sends the field ${field}, and only it`, [
        { field, message: 'is required, alone' },
      ]);
    }
    next();
  };
}
