/**
 * RFC 6238 as the package uses it (docs/mfa.md): HMAC-SHA-1, 6 digits, 30-second steps, one step of drift
 * either way. The codes come from `otpauth`; the QR code of the set-up link from `qrcode`, as SVG.
 */
import { createRequire } from 'node:module';
import type { TOTP } from 'otpauth';

/**
 * Required on the first TOTP operation, not imported above: an application whose users never set
 * up a second factor does not load it at start (docs/performance.md). Synchronous, so the functions
 * below keep their signatures.
 */
let library: typeof import('otpauth') | undefined;
const otpauth = () => (library ??= createRequire(import.meta.url)('otpauth') as typeof import('otpauth'));

export const TOTP_PERIOD_SECONDS = 30;
const DIGITS = 6;
const DRIFT_STEPS = 1;

/** A new secret: 20 random bytes (the HMAC-SHA-1 key size RFC 4226 recommends), base32. */
export function newTotpSecret(): string {
  return new (otpauth().Secret)({ size: 20 }).base32;
}

function totp(secret: string, label = 'account', issuer = 'service-auth'): TOTP {
  const { Secret, TOTP } = otpauth();
  return new TOTP({
    issuer,
    label,
    algorithm: 'SHA1',
    digits: DIGITS,
    period: TOTP_PERIOD_SECONDS,
    secret: Secret.fromBase32(secret),
  });
}

/** The `otpauth://` link an authenticator app reads from the QR code. */
export function otpauthUrl(secret: string, label: string, issuer: string): string {
  return totp(secret, label, issuer).toString();
}

export async function qrSvg(url: string): Promise<string> {
  // Loaded when a set-up first needs one, not with the package (every CLI command would pay for it).
  const { default: QRCode } = await import('qrcode');
  return QRCode.toString(url, { type: 'svg', margin: 1, errorCorrectionLevel: 'M' });
}

/** The code for a moment (tests, and the RFC's vectors). */
export function totpCode(secret: string, at: number): string {
  return totp(secret).generate({ timestamp: at });
}

/** The time step a code belongs to, within one step of `now`, or null if it is none of them. */
export function matchingStep(secret: string, code: string, now = Date.now()): number | null {
  if (!/^\d{6}$/.test(code)) return null;
  const delta = totp(secret).validate({ token: code, timestamp: now, window: DRIFT_STEPS });
  return delta === null ? null : Math.floor(now / 1000 / TOTP_PERIOD_SECONDS) + delta;
}
