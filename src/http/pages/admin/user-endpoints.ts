/**
 * The console's user endpoints as declared: the list, a user's page, the forms that change the
 * account, and impersonation. user-routes.ts mounts them with their handlers; the endpoint table
 * walks them for the OpenAPI document.
 */
import { endpoint } from '../../endpoints/endpoint.js';
import { tokenFailuresNote } from '../../endpoints/guards.js';
import { pathId, queryParameter } from '../../openapi/operations.js';
import { redirect } from '../../openapi/responses.js';
import { consoleGuard, consolePage, PAGE, USER_ID, userForm } from './admin-endpoints.js';

export const adminUsers = consolePage({
  path: '/admin/users',
  operationId: 'adminUsers',
  summary: 'The users, 25 a page, searched by part of the address',
  needs: '`read User`',
  section: 'users',
  parameters: [PAGE, queryParameter('email', 'Part of the address, in any case')],
});
export const adminUser = consolePage({
  path: '/admin/users/:id',
  operationId: 'adminUser',
  summary: 'A user, and the changes the caller may make to the account',
  needs: '`read User`',
  section: 'users',
  parameters: [pathId('The user’s id'), queryParameter('done', 'Says what was just done')],
  refusals: ['not_found'],
});

export const disabledForm = userForm(
  'disabled',
  'adminDisableUserForm',
  'Disable (`true`) or enable (`false`) the account',
  'disabled',
  ['true', 'false'],
);
export const addRoleForm = userForm(
  'roles/add',
  'adminAddRoleForm',
  'Give the user a role that exists (defined or created)',
  'roles',
  [],
);
export const removeRoleForm = userForm(
  'roles/remove',
  'adminRemoveRoleForm',
  'Take a role away from the user',
  'roles',
  [],
);
export const sessionsForm = userForm('sessions', 'adminEndSessionsForm', 'End every session of the user', 'sessions', [
  'end',
]);
export const tokensForm = userForm('tokens', 'adminRevokeTokensForm', 'Revoke every token of the user', 'tokens', [
  'revoke',
]);
export const mfaForm = userForm(
  'mfa',
  'adminResetMfaForm',
  'Remove the user’s app, recovery codes and passkeys, and end their sessions',
  'mfa',
  ['reset'],
);

export const adminImpersonateForm = endpoint({
  method: 'post',
  path: '/admin/users/:id/impersonate',
  operationId: 'adminImpersonateForm',
  summary: 'Act as the user (docs/impersonation.md): a new session as them, then home',
  description: ({ config }) =>
    [
      'Needs `read User` on every user, and `impersonate` on this user (never an `is_admin` one, nor oneself: 403',
      '`forbidden`; not while acting as someone already: 403 `impersonation_forbidden`), as',
      "`POST /api/impersonation`. Answered with a 303 to `/` and the new session's cookie.",
    ].join(' ') + tokenFailuresNote(config),
  tags: ['admin'],
  guards: [consoleGuard('users')],
  parameters: [USER_ID],
  responses: { 303: redirect('Acting as the user: to the application’s home') },
  refusals: ['bad_request', 'not_found', 'impersonation_forbidden'],
});

export const USER_CONSOLE = [
  adminUsers,
  adminUser,
  disabledForm,
  addRoleForm,
  removeRoleForm,
  sessionsForm,
  tokensForm,
  mfaForm,
  adminImpersonateForm,
];
