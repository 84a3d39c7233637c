/**
 * The account endpoints' request bodies. They say what must be there, and of what type; the
 * rules of an email address and of a password stay with the users room, which answers them with
 * their own codes (422 `invalid_email`, 422 `password_rules`), and are described here for the API's
 * description only.
 */
import { z } from 'zod';
import type { PasswordPolicy } from '../../config/config.js';

/** A string that must be there and not be empty. */
export const requiredText = z
  .string({
    error: (issue) => (issue.input === undefined || issue.input === null ? 'is required' : 'must be a string'),
  })
  .min(1, 'is required');

const email = requiredText.meta({
  format: 'email',
  maxLength: 254,
  description: 'Trimmed and compared lower-cased; 422 invalid_email if it is not an address',
});

function password(policy: PasswordPolicy) {
  const rules = policy.complexity
    ? ', with an uppercase letter, a lowercase letter, a digit and a special character'
    : '';
  return requiredText.meta({
    minLength: policy.minLength,
    maxLength: policy.maxLength,
    description: `${policy.minLength} to ${policy.maxLength} characters${rules}; 422 password_rules lists every rule it fails`,
  });
}

/** Where a page's form goes next: a same-site path (anything else is ignored). */
const next = z.string().optional().meta({ description: "A form's own: where to go after it (same-site paths only)" });

/** The logged-in user's password, asked again before a change that needs it. */
const currentPassword = requiredText.meta({
  description: 'The account’s current password; 401 invalid_credentials if it is not right',
});

export function accountSchemas(policy: PasswordPolicy) {
  const linkToken = (what: string) => requiredText.meta({ description: `The token of the link mailed ${what}` });
  return {
    register: z.object({ email, password: password(policy), next }).meta({ id: 'RegisterRequest' }),
    login: z.object({ email, password: requiredText, next }).meta({ id: 'LoginRequest' }),
    forgot: z.object({ email }).meta({ id: 'ForgotRequest' }),
    reset: z.object({ token: linkToken('for the reset'), password: password(policy) }).meta({ id: 'ResetRequest' }),
    changePassword: z
      .object({ current_password: currentPassword, password: password(policy) })
      .meta({ id: 'ChangePasswordRequest' }),
    deleteAccount: z.object({ password: currentPassword }).meta({ id: 'DeleteAccountRequest' }),
    changeEmail: z.object({ password: currentPassword, email }).meta({ id: 'ChangeEmailRequest' }),
    confirm: z.object({ token: linkToken('to confirm the address') }).meta({ id: 'ConfirmRequest' }),
    confirmEmail: z.object({ token: linkToken('to the new address') }).meta({ id: 'ConfirmEmailRequest' }),
    resend: z.object({ email }).meta({ id: 'ResendConfirmationRequest' }),
    loginSecondStep: z
      .object({
        ticket: requiredText.meta({ description: 'The `ticket` of the mfa_required answer to POST /login' }),
        code: z.string().optional().meta({ description: 'The 6 digits the authenticator app shows' }),
        recovery_code: z
          .string()
          .optional()
          .meta({ description: 'One of the ten recovery codes, instead of `code`: each works once' }),
        passkey: z.looseObject({ id: z.string() }).optional().meta({
          description: 'Instead of `code`: what `startAuthentication` answered to POST /login/mfa/passkey/options',
        }),
        next,
      })
      .refine(
        (body) => [body.code, body.recovery_code, body.passkey].filter((proof) => proof !== undefined).length === 1,
        {
          path: ['code'],
          message: 'give one of code, recovery_code or passkey',
        },
      )
      .meta({ id: 'LoginSecondStepRequest' }),
    addPasskey: z
      .object({
        response: z
          .looseObject({ id: z.string() })
          .meta({ description: 'What `startRegistration` of @simplewebauthn/browser answered' }),
        name: z
          .string()
          .max(100)
          .optional()
          .meta({ description: 'What the user calls it (“Laptop”); default “Passkey”' }),
      })
      .meta({ id: 'AddPasskeyRequest' }),
    passkeyLogin: z
      .object({
        response: z
          .looseObject({ id: z.string() })
          .meta({ description: 'What `startAuthentication` of @simplewebauthn/browser answered' }),
        next,
      })
      .meta({ id: 'PasskeyLoginRequest' }),
    secondStepOptions: z
      .object({ ticket: requiredText.meta({ description: 'The `ticket` of the mfa_required answer' }) })
      .meta({ id: 'SecondStepPasskeyOptionsRequest' }),
    confirmTotp: z
      .object({ code: requiredText.meta({ description: 'The 6 digits the app shows now' }) })
      .meta({ id: 'ConfirmTotpRequest' }),
    removeTotp: z.object({ password: currentPassword }).meta({ id: 'RemoveTotpRequest' }),
    passkeyOptions: z.object({ password: currentPassword }).meta({ id: 'PasskeyRegistrationOptionsRequest' }),
  };
}

export type AccountSchemas = ReturnType<typeof accountSchemas>;
