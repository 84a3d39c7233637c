/**
 * The problem details (RFC 9457) an endpoint answers with, as schemas: for each endpoint, only the
 * statuses and codes its guards and handler can give, so the document and the tests hold it to them.
 */
import { z } from 'zod';
import {
  SECOND_STEP_METHODS,
  SSO_FAILURE_REASONS,
  type ErrorCode,
  type PasswordRuleFailure,
  type ProblemDetails,
} from '../../errors.js';

const PASSWORD_RULES = [
  'min_length',
  'max_length',
  'uppercase',
  'lowercase',
  'digit',
  'special',
  'blocklisted',
] as const satisfies readonly PasswordRuleFailure['rule'][];

const fieldProblem = z
  .object({ field: z.string(), message: z.string() })
  .meta({ id: 'FieldProblem', description: 'A body field (or path parameter) and what is wrong with it' });
const ruleProblem = z
  .object({ rule: z.enum(PASSWORD_RULES), message: z.string() })
  .meta({ id: 'PasswordRuleProblem', description: 'A password rule the password fails' });

/**
 * RFC 9457 problem details with one status and only the codes an endpoint answers with it.
 * `errors` is there for `bad_request` (a field's problem each) and `password_rules` (every rule
 * failed); no other code carries it.
 */
export function problemSchema(status: number, codes: readonly [ErrorCode, ...ErrorCode[]]) {
  const items = [
    ...(codes.includes('bad_request') ? [fieldProblem] : []),
    ...(codes.includes('password_rules') ? [ruleProblem] : []),
  ];
  const ticket = z
    .string()
    .meta({ description: 'With mfa_required: the ticket POST /login/mfa names (single use, 5 minutes)' });
  const base = {
    type: z.literal('about:blank'),
    title: z.string(),
    status: z.literal(status),
    detail: z.string(),
    code: z.enum(codes).meta({ description: 'Stable: what clients branch on' }),
  };
  const [first, ...more] = items;
  const item = first && (more.length ? z.union([first, ...more]) : first);
  const methods = z.array(z.enum(SECOND_STEP_METHODS)).meta({
    description: 'With mfa_required: what the second step may bring for this account (`passkey` only if it has one)',
  });
  const reason = z
    .enum(SSO_FAILURE_REASONS)
    .meta({ description: 'With sso_failed: which check refused the provider’s answer (docs/sso.md)' });
  const full = z.object({
    ...base,
    ticket: ticket.optional(),
    methods: methods.optional(),
    reason: reason.optional(),
    errors: z.array(item ?? fieldProblem).optional(),
  });
  // Only a problem of `mfa_required` carries a ticket and methods, only `sso_failed` a reason, and
  // only field or rule problems `errors` (additionalProperties is false).
  const withReason = codes.includes('sso_failed') ? full : full.omit({ reason: true });
  const withTicket = codes.includes('mfa_required') ? withReason : withReason.omit({ ticket: true, methods: true });
  return (item ? withTicket : withTicket.omit({ errors: true })) satisfies z.ZodType<ProblemDetails>;
}
