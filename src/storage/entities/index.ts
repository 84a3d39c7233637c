import { ApiToken } from './api-token.js';
import { AuditEvent } from './audit-event.js';
import { CredentialChange } from './credential-change.js';
import { EmailToken } from './email-token.js';
import { PasswordReset } from './password-reset.js';
import { Role } from './role.js';
import { Session } from './session.js';
import { User } from './user.js';
import { UserRole } from './user-role.js';

export { ApiToken, AuditEvent, CredentialChange, EmailToken, PasswordReset, Role, Session, User, UserRole };

export const ENTITIES = [User, Role, UserRole, ApiToken, Session, PasswordReset, EmailToken, CredentialChange, AuditEvent];
