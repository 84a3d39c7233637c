import { ApiToken } from './api-token.js';
import { AuditEvent } from './audit-event.js';
import { CredentialChange } from './credential-change.js';
import { EmailToken } from './email-token.js';
import { Identity } from './identity.js';
import { Invitation } from './invitation.js';
import { LoginTicket } from './login-ticket.js';
import { Membership } from './membership.js';
import { Organization } from './organization.js';
import { Passkey } from './passkey.js';
import { PasswordReset } from './password-reset.js';
import { RecoveryCode } from './recovery-code.js';
import { Role } from './role.js';
import { Session } from './session.js';
import { SsoAttempt } from './sso-attempt.js';
import { TotpFactor } from './totp-factor.js';
import { User } from './user.js';
import { UserRole } from './user-role.js';
import { WebauthnChallenge } from './webauthn-challenge.js';

export {
  ApiToken,
  AuditEvent,
  CredentialChange,
  EmailToken,
  Identity,
  Invitation,
  LoginTicket,
  Membership,
  Organization,
  Passkey,
  PasswordReset,
  RecoveryCode,
  Role,
  Session,
  SsoAttempt,
  TotpFactor,
  User,
  UserRole,
  WebauthnChallenge,
};

export const ENTITIES = [
  User,
  Role,
  UserRole,
  ApiToken,
  Session,
  PasswordReset,
  EmailToken,
  CredentialChange,
  AuditEvent,
  TotpFactor,
  RecoveryCode,
  LoginTicket,
  Passkey,
  WebauthnChallenge,
  Organization,
  Membership,
  Invitation,
  Identity,
  SsoAttempt,
];
