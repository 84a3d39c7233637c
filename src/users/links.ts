/**
 * Links in mails point at SERVICE_AUTH_PUBLIC_URL and the prefix, never at the request's Host (a
 * forged Host would otherwise send the victim a link to the attacker's site).
 */
export class AccountLinks {
  constructor(
    private readonly publicUrl: string,
    private readonly urlPrefix: string,
  ) {}

  /** The page at `path` under the prefix, with the token in its query when given. */
  to(path: string, token?: string): string {
    return `${this.publicUrl}${this.urlPrefix}${path}${token === undefined ? '' : `?token=${encodeURIComponent(token)}`}`;
  }
}
