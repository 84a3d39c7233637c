/** The built-in pages by name: the names an application's own views use (`service-auth/<name>`). */
import { forgotPage, loginPage, registerPage, resetPage, type AccountPageLocals } from './account-pages.js';
import { confirmEmailPage, confirmPage, type ConfirmEmailPageLocals, type ConfirmPageLocals } from './confirm-pages.js';
import { identitiesPage, type IdentitiesPageLocals } from './identities-page.js';
import { invitationPage, type InvitationPageLocals } from './invitation-page.js';
import { mfaPage, secondStepPage, type MfaPageLocals, type SecondStepPageLocals } from './mfa-pages.js';
import { orgPage, orgsPage, type OrgPageLocals, type OrgsPageLocals } from './org-pages.js';
import { passkeysPage, type PasskeysPageLocals } from './passkeys-page.js';
import { problemPage, type ProblemPageLocals } from './problem-page.js';
import {
  deleteAccountPage,
  emailPage,
  passwordPage,
  type DeleteAccountPageLocals,
  type EmailPageLocals,
  type PasswordPageLocals,
} from './profile-pages.js';
import { revokePage, type RevokePageLocals } from './revoke-page.js';
import { securityLogPage, type SecurityLogPageLocals } from './security-log-page.js';
import { sessionsPage, type SessionsPageLocals } from './sessions-page.js';
import { tokensPage, type TokensPageLocals } from './tokens-page.js';

export interface PageLocalsByName {
  login: AccountPageLocals;
  register: AccountPageLocals;
  forgot: AccountPageLocals;
  reset: AccountPageLocals;
  tokens: TokensPageLocals;
  revoke: RevokePageLocals;
  password: PasswordPageLocals;
  sessions: SessionsPageLocals;
  'security-log': SecurityLogPageLocals;
  mfa: MfaPageLocals;
  passkeys: PasskeysPageLocals;
  identities: IdentitiesPageLocals;
  'login-mfa': SecondStepPageLocals;
  email: EmailPageLocals;
  'delete-account': DeleteAccountPageLocals;
  confirm: ConfirmPageLocals;
  'confirm-email': ConfirmEmailPageLocals;
  orgs: OrgsPageLocals;
  org: OrgPageLocals;
  invitation: InvitationPageLocals;
  problem: ProblemPageLocals;
}

export type PageName = keyof PageLocalsByName;

export const PAGES: { [N in PageName]: (locals: PageLocalsByName[N]) => string } = {
  login: loginPage,
  register: registerPage,
  forgot: forgotPage,
  reset: resetPage,
  tokens: tokensPage,
  revoke: revokePage,
  password: passwordPage,
  sessions: sessionsPage,
  'security-log': securityLogPage,
  mfa: mfaPage,
  passkeys: passkeysPage,
  identities: identitiesPage,
  'login-mfa': secondStepPage,
  email: emailPage,
  'delete-account': deleteAccountPage,
  confirm: confirmPage,
  'confirm-email': confirmEmailPage,
  orgs: orgsPage,
  org: orgPage,
  invitation: invitationPage,
  problem: problemPage,
};
