/**
 * The console's endpoints (docs/admin.md): HTML for a signed-in person whose CASL rules open the
 * part of the console asked for; an API token is refused (403 `forbidden`). Each change to a user
 * is a form naming the one field it changes.
 */
import type { OpenAPIV3_1 } from 'openapi-types';
import type { ErrorCode } from '../../../errors.js';
import { endpoint, type Endpoint, type Guard } from '../../endpoints/endpoint.js';
import { loginRefusals, SESSION, tokenFailuresNote } from '../../endpoints/guards.js';
import { pathId, queryParameter, toLoginPage } from '../../openapi/operations.js';
import { page as htmlPage, redirect } from '../../openapi/responses.js';
import { auditedAsOperator, consoleGate, type Section } from './access.js';

/** The console's gate: a session whose rules open the part (any part, for the home page); recorded as the operator. */
export function consoleGuard(section?: Section): Guard {
  return {
    use: ({ guards }) => (section ? [consoleGate(guards, section), auditedAsOperator] : [consoleGate(guards)]),
    refusals: (config, unsafe) => [...loginRefusals(config, unsafe), 'forbidden'],
    security: SESSION,
  };
}

export const PAGE = queryParameter('page', 'The page, from 1 (400 `bad_request` for anything else)');
export const USER_ID = pathId('The user’s id (404 `not_found` for one that names nobody)');

export interface ConsolePage {
  path: string;
  operationId: string;
  summary: string;
  /** What the part needs on every subject. */
  needs: string;
  section?: Section;
  parameters?: OpenAPIV3_1.ParameterObject[];
  refusals?: readonly ErrorCode[];
}

/** A page of the console. */
export function consolePage(page: ConsolePage): Endpoint {
  const { path, operationId, summary, needs, section, parameters = [], refusals = [] } = page;
  return endpoint({
    method: 'get',
    path,
    operationId,
    summary,
    description: ({ config }) =>
      `Needs a session and ${needs} on every subject (a rule without conditions; \`manage all\` will do): 403` +
      ` \`forbidden\` otherwise.${tokenFailuresNote(config)}`,
    tags: ['admin'],
    guards: [consoleGuard(section)],
    parameters,
    responses: ({ config }) => ({ 200: htmlPage('The page'), 303: toLoginPage(config) }),
    refusals: ['bad_request', ...refusals],
  });
}

/** A form of the user's page changing one field of the user (`update User` on it), answered with a redirect. */
export function userForm(
  path: string,
  operationId: string,
  summary: string,
  field: string,
  values: string[],
): Endpoint {
  const roles = field === 'roles';
  return endpoint({
    method: 'post',
    path: `/admin/users/:id/${path}`,
    operationId,
    summary,
    description: ({ config }) =>
      [
        `Needs \`read User\` on every user, and \`update\` on this user with the field \`${field}\``,
        roles
          ? ', and `assign` on `Role { name }` (403 `forbidden`); a role that neither a definition names nor was' +
            ' created (`auth create-role`) is 422 `unknown_role`'
          : '',
        '. ',
        field === 'disabled' || roles
          ? ' An `is_admin` account is disabled, or loses a role, only by an `is_admin` operator (403 `forbidden`).'
          : ' An `is_admin` account’s sessions, tokens and second factor are ended, revoked or reset only by an' +
            ' `is_admin` operator (403 `forbidden`).',
        ' The body is that field alone (400 `bad_request` otherwise). Answered with a 303 to',
        ` \`${config.urlPrefix}/admin/users/{id}?done=…\`; recorded with the operator as \`detail.by\`.`,
        tokenFailuresNote(config),
      ].join(''),
    tags: ['admin'],
    guards: [consoleGuard('users')],
    parameters: [USER_ID],
    formBody: {
      type: 'object',
      required: [field],
      additionalProperties: false,
      properties: { [field]: values.length ? { type: 'string', enum: values } : { type: 'string' } },
    },
    responses: { 303: redirect('Done: to the user’s page') },
    refusals: ['bad_request', 'not_found', ...(roles ? (['unknown_role'] as const) : [])],
  });
}
