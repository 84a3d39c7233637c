/**
 * Errors with a status and a stable `code`, as RFC 9457 problem details. Clients branch on `code`;
 * `title` and `detail` are for people. Turning them into responses is the one error middleware's
 * job (http/errors.ts); everything else only throws them or hands them to `next(err)`.
 */

const PROBLEMS = {
  bad_request: [400, 'Bad Request'],
  invalid_reset_token: [400, 'Invalid reset token'],
  invalid_confirmation_token: [400, 'Invalid confirmation token'],
  invalid_passkey: [400, 'Invalid passkey'],
  invalid_invitation: [400, 'Invalid invitation'],
  sso_failed: [400, 'Sign-in through the provider failed'],
  unauthenticated: [401, 'Unauthenticated'],
  invalid_credentials: [401, 'Invalid credentials'],
  invalid_token: [401, 'Invalid token'],
  mfa_required: [401, 'Second factor required'],
  invalid_code: [401, 'Invalid code'],
  invalid_ticket: [401, 'Invalid login ticket'],
  forbidden: [403, 'Forbidden'],
  insufficient_scope: [403, 'Insufficient scope'],
  csrf_rejected: [403, 'Cross-site request rejected'],
  session_required: [403, 'Session required'],
  account_disabled: [403, 'Account disabled'],
  email_unconfirmed: [403, 'Email not confirmed'],
  invitation_email_mismatch: [403, 'Invitation for another address'],
  impersonation_forbidden: [403, 'Not while impersonating'],
  not_found: [404, 'Not Found'],
  request_timeout: [408, 'Request Timeout'],
  email_taken: [409, 'Email taken'],
  token_limit: [409, 'Token limit reached'],
  role_in_use: [409, 'Role in use'],
  mfa_already_enabled: [409, 'Second factor already enabled'],
  slug_taken: [409, 'Slug taken'],
  last_owner: [409, 'Last owner'],
  already_member: [409, 'Already a member'],
  org_has_members: [409, 'Organization has members'],
  too_many_organizations: [409, 'Too many organizations'],
  last_sign_in_method: [409, 'Last sign-in method'],
  identity_in_use: [409, 'Identity linked to another account'],
  row_changed: [409, 'Row changed since read'],
  payload_too_large: [413, 'Payload Too Large'],
  invalid_email: [422, 'Invalid email'],
  password_rules: [422, 'Password rules not met'],
  unknown_role: [422, 'Unknown role'],
  unknown_scope: [422, 'Unknown scope'],
  rate_limited: [429, 'Too Many Requests'],
  internal_error: [500, 'Internal Server Error'],
  unavailable: [503, 'Service Unavailable'],
  attributes_unavailable: [503, 'Attributes unavailable'],
} as const satisfies Record<string, readonly [number, string]>;

export type ErrorCode = keyof typeof PROBLEMS;

/** Every code, for documentation and for tests that check no other code is ever answered. */
export const ERROR_CODES = Object.keys(PROBLEMS) as ErrorCode[];

/** One entry of a problem's `errors` list: a field for `bad_request`, a rule for `password_rules`. */
export type ProblemItem = { field: string; message: string } | { rule: string; message: string };

export interface ProblemDetails {
  type: 'about:blank';
  title: string;
  status: number;
  detail: string;
  code: ErrorCode;
  errors?: ProblemItem[];
  /** With `mfa_required`: the ticket the login's second step names. */
  ticket?: string;
  /** With `mfa_required`: what the second step may bring for this account. */
  methods?: SecondStepMethod[];
  /** With `sso_failed`: which check refused the provider's answer. */
  reason?: SsoFailureReason;
}

/** Why a sign-in through an identity provider was refused (docs/sso.md). */
export const SSO_FAILURE_REASONS = [
  'state',
  'nonce',
  'issuer',
  'signature',
  'audience',
  'provider_error',
  'email_unverified',
  'not_linked',
] as const;
export type SsoFailureReason = (typeof SSO_FAILURE_REASONS)[number];

/** What a login's second step may bring: a code from the app, a recovery code, or a passkey's answer. */
export const SECOND_STEP_METHODS = ['totp', 'recovery_code', 'passkey'] as const;
export type SecondStepMethod = (typeof SECOND_STEP_METHODS)[number];

/** RFC 9110 asks every 401 to say how to authenticate; ours is a bearer token (or the session). */
export const BEARER_CHALLENGE = 'Bearer realm="service-auth"';

export class AuthError extends Error {
  override name = 'AuthError';
  readonly status: number;
  /** The `http-errors` convention, so that even Express's default handler keeps our status. */
  readonly statusCode: number;
  readonly expose = true;
  readonly title: string;
  /** Extra response headers, e.g. `Retry-After`, `WWW-Authenticate` or the `RateLimit-*` fields. */
  readonly headers: Readonly<Record<string, string>>;

  constructor(
    readonly code: ErrorCode,
    detail: string,
    readonly errors?: ProblemItem[],
    headers: Record<string, string> = {},
  ) {
    super(detail);
    [this.status, this.title] = PROBLEMS[code];
    this.statusCode = this.status;
    this.headers =
      this.status === 401 && !headers['WWW-Authenticate']
        ? { ...headers, 'WWW-Authenticate': BEARER_CHALLENGE }
        : headers;
  }

  toProblem(): ProblemDetails {
    const problem: ProblemDetails = {
      type: 'about:blank',
      title: this.title,
      status: this.status,
      detail: this.message,
      code: this.code,
    };
    if (this.errors) problem.errors = this.errors;
    return problem;
  }
}

/**
 * No credentials where a session would do: a browser navigation is sent to the login page (and
 * back after), anything else gets the 401. Guards that need a token throw a plain `unauthenticated`.
 */
export class LoginRequired extends AuthError {
  override name = 'LoginRequired';

  constructor(detail = 'Log in, or send an API token, to see this') {
    super('unauthenticated', detail);
  }
}

/** A body field that is missing, mistyped or out of range. */
/**
 * The right password of a user with a second factor: no session yet, but a ticket (single use, five
 * minutes) for `POST /login/mfa` with a code.
 */
export class MfaRequired extends AuthError {
  override name = 'MfaRequired';

  constructor(
    readonly ticket: string,
    readonly methods: SecondStepMethod[],
  ) {
    super('mfa_required', 'Enter a code from your authenticator app, or a recovery code');
  }

  override toProblem(): ProblemDetails {
    return { ...super.toProblem(), ticket: this.ticket, methods: this.methods };
  }
}

/** A provider's answer refused, or an identity that may not sign in: 400 `sso_failed` with the `reason`, and no session. */
export class SsoFailed extends AuthError {
  override name = 'SsoFailed';

  constructor(
    readonly reason: SsoFailureReason,
    detail: string,
  ) {
    super('sso_failed', detail);
  }

  override toProblem(): ProblemDetails {
    return { ...super.toProblem(), reason: this.reason };
  }
}

export class ValidationError extends AuthError {
  override name = 'ValidationError';

  constructor(readonly fieldErrors: { field: string; message: string }[]) {
    super('bad_request', fieldErrors.map((e) => `${e.field}: ${e.message}`).join('; '), fieldErrors);
  }

  /**
   * A schema's refusal as field errors: the first problem of each top-level field (an item of a
   * list is its field's problem).
   */
  static fromIssues(issues: readonly { path: readonly PropertyKey[]; message: string }[]): ValidationError {
    const byField = new Map<string, string>();
    for (const issue of issues) {
      const field = issue.path.length ? String(issue.path[0]) : 'body';
      if (!byField.has(field)) byField.set(field, issue.message);
    }
    return new ValidationError([...byField].map(([field, message]) => ({ field, message })));
  }
}

export interface PasswordRuleFailure {
  rule: 'min_length' | 'max_length' | 'uppercase' | 'lowercase' | 'digit' | 'special' | 'blocklisted';
  message: string;
}

/** Every password rule that failed, reported at once. */
export class PasswordRulesError extends AuthError {
  override name = 'PasswordRulesError';

  constructor(readonly failures: PasswordRuleFailure[]) {
    super('password_rules', failures.map((f) => f.message).join('; '), failures);
  }
}

/** The token a bearer header carried was refused. */
export function invalidToken(): AuthError {
  return new AuthError('invalid_token', 'The token is malformed, unknown, expired or revoked', undefined, {
    'WWW-Authenticate': `${BEARER_CHALLENGE}, error="invalid_token"`,
  });
}
