/**
 * TOTP secrets at rest. With SERVICE_AUTH_SECRET set they are sealed with AES-256-GCM under a key
 * derived from it (HKDF-SHA-256), so that a copy of the database alone yields no second factor;
 * without it they are stored as they are, marked so. A sealed secret that no longer opens (the
 * secret changed) reads as none: its owner signs in with a recovery code, or an operator runs
 * `auth reset-mfa`.
 */
import { createCipheriv, createDecipheriv, hkdfSync, randomBytes } from 'node:crypto';

const SEALED = 'v1:';
const PLAIN = 'plain:';

export class SecretBox {
  private readonly key: Buffer | undefined;

  constructor(secret: string | undefined) {
    this.key =
      secret === undefined ? undefined : Buffer.from(hkdfSync('sha256', secret, 'service-auth', 'totp secrets', 32));
  }

  seal(plain: string): string {
    if (!this.key) return PLAIN + plain;
    const iv = randomBytes(12);
    const cipher = createCipheriv('aes-256-gcm', this.key, iv);
    const sealed = Buffer.concat([cipher.update(plain, 'utf8'), cipher.final()]);
    return SEALED + [iv, cipher.getAuthTag(), sealed].map((part) => part.toString('base64url')).join('.');
  }

  /** The secret, or undefined if it cannot be opened (sealed under another secret, or none now). */
  open(stored: string): string | undefined {
    if (stored.startsWith(PLAIN)) return stored.slice(PLAIN.length);
    if (!stored.startsWith(SEALED) || !this.key) return undefined;
    const [iv, tag, sealed] = stored
      .slice(SEALED.length)
      .split('.')
      .map((part) => Buffer.from(part, 'base64url'));
    try {
      const decipher = createDecipheriv('aes-256-gcm', this.key, iv!);
      decipher.setAuthTag(tag!);
      return Buffer.concat([decipher.update(sealed!), decipher.final()]).toString('utf8');
    } catch {
      return undefined;
    }
  }
}
