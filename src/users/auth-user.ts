/** The user as application code sees it: `req.user`, event handlers, `auth.users` results. */
export interface PublicUser {
  id: number;
  email: string;
  is_admin: boolean;
  roles: string[];
  created_at: string;
  /** An operator disabled the account: its credentials are refused. */
  disabled: boolean;
  /** The address is confirmed (always, unless SERVICE_AUTH_EMAIL_CONFIRMATION is on and it is pending). */
  email_confirmed: boolean;
  /** The user has a second factor. */
  mfa_enabled: boolean;
}

/** What a user's account is, besides who: every field defaults to an ordinary, usable account. */
export interface AccountState {
  disabled?: boolean;
  email_confirmed?: boolean;
  mfa_enabled?: boolean;
}

export class AuthUser {
  readonly roles: ReadonlySet<string>;
  readonly disabled: boolean;
  readonly email_confirmed: boolean;
  readonly mfa_enabled: boolean;

  constructor(
    readonly id: number,
    readonly email: string,
    readonly is_admin: boolean,
    roles: Iterable<string>,
    readonly created_at: Date,
    state: AccountState = {},
  ) {
    this.roles = new Set([...roles].sort());
    this.disabled = state.disabled ?? false;
    this.email_confirmed = state.email_confirmed ?? true;
    this.mfa_enabled = state.mfa_enabled ?? false;
    Object.freeze(this);
  }

  /** The camel-case spelling of `is_admin`, for TypeScript code. */
  get isAdmin(): boolean {
    return this.is_admin;
  }

  hasRole(role: string): boolean {
    return this.roles.has(role);
  }

  /** The user's JSON form in the HTTP API, so `res.json(req.user)` shows roles as a sorted list. */
  toJSON(): PublicUser {
    return {
      id: this.id,
      email: this.email,
      is_admin: this.is_admin,
      roles: [...this.roles],
      created_at: this.created_at.toISOString(),
      disabled: this.disabled,
      email_confirmed: this.email_confirmed,
      mfa_enabled: this.mfa_enabled,
    };
  }
}
