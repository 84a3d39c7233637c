/** The policy explorer: the matrix of what each role allows, and "why" for a user (`auth.explain`). */
import type { Request } from 'express';
import { POLICY_ACTION } from '../../../authorization/policy-rules.js';
import type { Explanation } from '../../../authorization/explain.js';
import { roleMatrix } from '../../../authorization/reach.js';
import { AuthError } from '../../../errors.js';
import type { GuardKit } from '../../endpoints/guard-kit.js';
import { EndpointRouter } from '../../endpoints/mount.js';
import { queryParameter } from '../../openapi/operations.js';
import type { FieldErrors } from '../fields.js';
import { consolePage } from './admin-endpoints.js';
import { policyPage } from './policy-page.js';
import { parseFieldValues, parseQuery, whyQuery } from './query.js';
import { sendAdminPage, type AdminPageBase } from './shell.js';
import { ADMIN_TEXTS } from './texts.js';
import type { AdminDeps } from './routes.js';

export const adminPolicy = consolePage({
  path: '/admin/policy',
  operationId: 'adminPolicy',
  summary: 'The policy explorer: what each role allows, and why a user may or may not do something',
  needs: '`read Policy`',
  section: 'policy',
  parameters: [
    queryParameter('email', 'The user to explain for'),
    queryParameter('action', 'The action'),
    queryParameter('subject', 'The subject type'),
    queryParameter('org', 'An organization (id or slug): explain in it'),
    queryParameter('fields', 'The subject’s field values, one a line: `name=text` or `name:=JSON`'),
  ],
});

export function policyRoutes(deps: AdminDeps, kit: GuardKit, base: (req: Request) => AdminPageBase): EndpointRouter {
  return new EndpointRouter(kit).on(adminPolicy, async (req, res) => {
    const why = parseQuery(whyQuery, req);
    const { actions, subjects } = deps.abilities.knownNames();
    // Named policies are functions of the user and the subject: they have no place in a matrix of rules.
    const ruleActions = [...actions].filter((action) => action !== POLICY_ACTION && action !== 'manage').sort();
    const definitions = deps.abilities.definitions();
    const named = new Set(
      definitions.flatMap((definition) => definition.rules.flatMap((rule) => [rule.subject].flat())),
    );
    const ruleSubjects = [...subjects].filter((subject) => named.has(subject) && subject !== 'all').sort();
    const matrix = roleMatrix(definitions, ruleActions, ruleSubjects);

    let explanation: Explanation | null = null;
    let errors: FieldErrors | null = null;
    const asked = why.email !== undefined || why.action !== undefined || why.subject !== undefined;
    if (asked) ({ explanation, errors } = await ask(deps, why));
    sendAdminPage(
      res,
      errors ? 400 : 200,
      policyPage({ ...base(req), matrix, actions: ruleActions, subjects: ruleSubjects, why, explanation, errors }),
    );
  });
}

/** The explanation, or the fields that stop it being given (shown beside them). */
async function ask(
  deps: AdminDeps,
  why: {
    email?: string | undefined;
    action?: string | undefined;
    subject?: string | undefined;
    org?: string | undefined;
    fields?: string | undefined;
  },
): Promise<{ explanation: Explanation | null; errors: FieldErrors | null }> {
  const required = (['email', 'action', 'subject'] as const).filter((name) => why[name] === undefined);
  if (required.length)
    return {
      explanation: null,
      errors: Object.fromEntries(required.map((name) => [name, { message: 'is required' }])),
    };
  let context: Record<string, unknown>;
  try {
    context = parseFieldValues(why.fields);
  } catch (error) {
    if (error instanceof AuthError)
      return { explanation: null, errors: { fields: { message: error.errors?.[0]?.message ?? error.message } } };
    throw error;
  }
  const user = await deps.users.findByEmail(why.email!);
  if (!user) return { explanation: null, errors: { email: { message: ADMIN_TEXTS.policy.unknownUser } } };
  try {
    return { explanation: await deps.explain(user, why.action!, why.subject!, context, why.org), errors: null };
  } catch (error) {
    // A name no rule uses (typos are errors: the message names the nearest one), or no such organization.
    if (error instanceof TypeError)
      return {
        explanation: null,
        errors: {
          [/subject type/.test(error.message) ? 'subject' : 'action']: {
            message: error.message.replace(/^explain: /, ''),
          },
        },
      };
    if (error instanceof AuthError && error.code === 'not_found')
      return { explanation: null, errors: { org: { message: error.message } } };
    throw error;
  }
}
