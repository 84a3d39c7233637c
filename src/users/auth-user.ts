/** The user as application code sees it: `req.user`, event handlers, `auth.users` results. */
export interface PublicUser {
  id: number;
  email: string;
  is_admin: boolean;
  roles: string[];
  created_at: string;
}

export class AuthUser {
  readonly roles: ReadonlySet<string>;

  constructor(
    readonly id: number,
    readonly email: string,
    readonly is_admin: boolean,
    roles: Iterable<string>,
    readonly created_at: Date,
  ) {
    this.roles = new Set([...roles].sort());
    Object.freeze(this);
  }

  /** The camel-case spelling of `is_admin`, for TypeScript code. */
  get isAdmin(): boolean {
    return this.is_admin;
  }

  hasRole(role: string): boolean {
    return this.roles.has(role);
  }

  /** The JSON form of CONTRACT section 3, so `res.json(req.user)` shows roles as a sorted list. */
  toJSON(): PublicUser {
    return {
      id: this.id,
      email: this.email,
      is_admin: this.is_admin,
      roles: [...this.roles],
      created_at: this.created_at.toISOString(),
    };
  }
}
