import { parse } from 'cookie';
import type { Request, Response } from 'express';
import type { AuthConfig } from '../config.js';

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

  /** The session id the request carries, if it has the right shape. */
  read(req: Request): string | undefined {
    const header = req.headers.cookie;
    if (!header || !header.includes(this.name)) return undefined;
    const value = parse(header)[this.name];
    return value && SESSION_ID.test(value) ? value : undefined;
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
