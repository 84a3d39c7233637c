import type { Request, Response } from 'express';
import type { AuthConfig } from '../config/config.js';

/** A session id as we issue it: 32 bytes in base64url. Anything else is not worth a lookup. */
const SESSION_ID = /^[A-Za-z0-9_-]{43}$/;

/**
 * The session cookie: HttpOnly (no script reads it), SameSite=Lax (not sent on cross-site
 * subrequests and POSTs), Path=/, and Secure per configuration. A Secure cookie is named with the
 * `__Host-` prefix, which browsers only accept from a secure origin, without Domain and with
 * Path=/: a sibling subdomain cannot plant or shadow it.
 */
export class SessionCookie {
  readonly name: string;

  constructor(private readonly config: AuthConfig['sessions']) {
    this.name = config.secure ? `__Host-${config.cookieName}` : config.cookieName;
  }

  /**
   * The session id the request carries, if it has the right shape. This runs on every guarded
   * request, so it finds our one cookie in the header instead of parsing them all; our values are
   * base64url, which needs no decoding, and anything else is refused by the shape check.
   */
  read(req: Request): string | undefined {
    const header = req.headers.cookie;
    if (!header) return undefined;
    for (let at = header.indexOf(this.name); at !== -1; at = header.indexOf(this.name, at + 1)) {
      const startsPair = at === 0 || header[at - 1] === ' ' || header[at - 1] === ';';
      const valueAt = at + this.name.length + 1;
      if (!startsPair || header[valueAt - 1] !== '=') continue;
      const end = header.indexOf(';', valueAt);
      const value = header.slice(valueAt, end === -1 ? undefined : end).trim();
      return SESSION_ID.test(value) ? value : undefined;
    }
    return undefined;
  }

  set(res: Response, id: string, expiresAt: Date): void {
    res.cookie(this.name, id, { ...this.attributes(), expires: expiresAt });
  }

  clear(res: Response): void {
    res.clearCookie(this.name, this.attributes());
  }

  private attributes() {
    return { httpOnly: true, sameSite: 'lax', path: '/', secure: this.config.secure } as const;
  }
}
