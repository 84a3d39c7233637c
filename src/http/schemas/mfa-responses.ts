/**
 * The second factors' response bodies, as schemas: the authenticator app, recovery codes,
 * passkeys, and the identities linked through providers.
 */
import { z } from 'zod';
import { timestamp } from './responses.js';

/** `GET /api/mfa`. */
export const secondFactorStateResponse = z
  .object({ totp: z.enum(['none', 'pending', 'enabled']), recovery_codes_left: z.number().int() })
  .meta({ id: 'SecondFactorState' });

/** `POST /api/mfa/totp`: the pending secret, three ways. */
export const totpSetupResponse = z
  .object({
    secret: z.string().meta({ description: 'Base32, for typing into an app by hand' }),
    otpauth_url: z.string().meta({ description: 'otpauth://totp/… (SHA-1, 6 digits, 30 s)' }),
    qr_svg: z.string().meta({ description: 'The link as a QR code, an SVG document' }),
  })
  .meta({ id: 'TotpSetup' });

/** WebAuthn options for the browser (`startRegistration` / `startAuthentication` of @simplewebauthn/browser). */
export const webauthnOptionsResponse = z
  .looseObject({
    challenge: z.string(),
    rpId: z.string().optional(),
    rp: z.looseObject({ id: z.string().optional(), name: z.string() }).optional(),
  })
  .meta({
    id: 'WebAuthnOptions',
    description: 'PublicKeyCredentialCreationOptionsJSON or PublicKeyCredentialRequestOptionsJSON',
  });

const passkeyViewSchema = z
  .object({
    id: z.string().meta({ description: 'The credential id (base64url): DELETE /api/passkeys/{id}' }),
    name: z.string(),
    created_at: timestamp,
    last_used_at: timestamp.nullable(),
  })
  .meta({ id: 'Passkey' });

export const passkeyListResponse = z.object({ passkeys: z.array(passkeyViewSchema) }).meta({ id: 'PasskeyList' });
const identityViewSchema = z
  .object({
    id: z.int().meta({ description: 'DELETE /api/identities/{id}' }),
    provider: z.string(),
    subject: z.string(),
    email: z.string().nullable(),
    created_at: timestamp,
  })
  .meta({ id: 'Identity' });

export const identityListResponse = z.object({ identities: z.array(identityViewSchema) }).meta({ id: 'IdentityList' });
export const passkeyCreatedResponse = z.object({ passkey: passkeyViewSchema }).meta({ id: 'PasskeyCreated' });

/** `POST /api/mfa/totp/confirm`: the recovery codes, this once. */
export const recoveryCodesResponse = z
  .object({ recovery_codes: z.array(z.string()).length(10) })
  .meta({ id: 'RecoveryCodes' });
