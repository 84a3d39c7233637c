/**
 * The words of the pages where a person looks after their own account (password, address,
 * sessions, deletion) and of the links mailed to confirm an address. Part of `PageTexts`
 * (texts.ts), which freezes them with the rest; kept in a file of their own only for its size.
 */

import type { AuditType } from '../../audit/records.js';

export interface ProfileTexts {
  /** The links between the account's own pages, at the foot of each. */
  account: {
    heading: string;
    sessions: string;
    password: string;
    email: string;
    mfa: string;
    passkeys: string;
    identities: string;
    tokens: string;
    orgs: string;
    securityLog: string;
    deleteAccount: string;
  };
  changePassword: { title: string; intro: string; current: string; submit: string };
  sessions: {
    title: string;
    signedInAs(email: string): string;
    columns: { device: string; started: string; lastSeen: string; actions: string };
    /** A browser and a system read from the User-Agent of the session's login, e.g. "Firefox", "Linux". */
    device(browser: string, system: string): string;
    unknownDevice: string;
    thisDevice: string;
    end: string;
    endLabel(device: string, started: string): string;
    endThis: string;
    endThisLabel: string;
    endOthers: string;
    othersHint: string;
    /** Under the list: the cap on sessions (SERVICE_AUTH_MAX_SESSIONS_PER_USER) and what passing it does. */
    limit(max: number): string;
    ended: string;
    othersEnded: string;
    passwordChanged: string;
    notFound: string;
  };
  changeEmail: {
    title: string;
    current(email: string): string;
    newEmail: string;
    passwordHint: string;
    submit: string;
    sent(email: string): string;
    taken: string;
  };
  confirm: {
    title: string;
    intro: string;
    submit: string;
    confirmed(email: string): string;
    login: string;
    unusable: string;
    resendIntro: string;
    resendSubmit: string;
    sent: string;
  };
  confirmEmail: {
    title: string;
    intro: string;
    submit: string;
    changed(email: string): string;
    unusable: string;
    taken: string;
    askAgain: string;
    continue: string;
  };
  deleteAccount: { title: string; warning(email: string): string; consequence: string; submit: string; cancel: string };
  securityLog: {
    title: string;
    caption(email: string): string;
    columns: { when: string; what: string; outcome: string; from: string; device: string };
    /** What each type of record says happened. */
    events: Record<AuditType, string>;
    succeeded: string;
    /** A failure, with its problem code (e.g. `invalid_credentials`), when it has one. */
    failed(reason: string | null): string;
    empty: string;
    older: string;
  };
}

export const defaultProfileTexts: ProfileTexts = {
  account: {
    heading: 'Your account',
    sessions: 'Sessions',
    password: 'Password',
    email: 'Email address',
    mfa: 'Two-step login',
    passkeys: 'Passkeys',
    tokens: 'API tokens',
    orgs: 'Organizations',
    securityLog: 'Security log',
    identities: 'Sign-in providers',
    deleteAccount: 'Delete account',
  },
  changePassword: {
    title: 'Change your password',
    intro: 'Your other sessions end when the password changes; API tokens keep working.',
    current: 'Current password',
    submit: 'Change password',
  },
  sessions: {
    title: 'Your sessions',
    signedInAs: (email) => `Where ${email} is logged in (times in UTC)`,
    columns: { device: 'Device', started: 'Started', lastSeen: 'Last seen', actions: 'Actions' },
    device: (browser, system) => `${browser} on ${system}`,
    unknownDevice: 'Unknown device',
    thisDevice: 'this device',
    end: 'End',
    endLabel: (device, started) => `End the session of ${device} started ${started}`,
    endThis: 'Log out',
    endThisLabel: 'End this session (log out)',
    endOthers: 'End every other session',
    othersHint: 'Logs out every other device; this one stays logged in.',
    limit: (max) =>
      `You can be logged in ${max === 1 ? 'once' : `${max} times`} at most: logging in once more ` +
      `ends the oldest session.`,
    ended: 'The session was ended: that device is logged out.',
    othersEnded: 'Every other session was ended: only this device is logged in.',
    passwordChanged: 'Your password has been changed. Every other session was ended.',
    notFound: 'That session has already ended, or is not yours.',
  },
  changeEmail: {
    title: 'Change your email address',
    current: (email) => `Your account’s address is ${email}.`,
    newEmail: 'New email address',
    passwordHint: 'Your password, to confirm it is you.',
    submit: 'Send the link',
    sent: (email) => `A link to confirm the change is on its way to ${email}. The address changes when you open it.`,
    taken: 'Another account uses this address. Choose another one.',
  },
  confirm: {
    title: 'Confirm your email address',
    intro: 'Press the button to confirm the address of your new account.',
    submit: 'Confirm my address',
    confirmed: (email) => `The address ${email} is confirmed. You can log in now.`,
    login: 'Log in',
    unusable: 'This confirmation link is unknown, expired or already used.',
    resendIntro: 'Enter the email of your account and we will mail you a new link to confirm it.',
    resendSubmit: 'Send a new link',
    sent: 'If that address has an account awaiting confirmation, a new link is on its way.',
  },
  confirmEmail: {
    title: 'Confirm your new email address',
    intro: 'Press the button to move your account to this address.',
    submit: 'Confirm the new address',
    changed: (email) => `Your account’s email address is now ${email}.`,
    unusable: 'This link is unknown, expired or already used.',
    taken: 'Another account now uses this address, so your address was not changed.',
    askAgain: 'Change your address again',
    continue: 'Continue',
  },
  deleteAccount: {
    title: 'Delete your account',
    warning: (email) => `This deletes the account ${email} at once, with its sessions, API tokens and pending links.`,
    consequence: 'It cannot be undone. The address may register again later.',
    submit: 'Delete my account',
    cancel: 'Cancel',
  },
  securityLog: {
    title: 'Your security log',
    caption: (email) => `What happened to ${email}, newest first (times in UTC)`,
    columns: { when: 'When', what: 'What', outcome: 'Outcome', from: 'From', device: 'Device' },
    events: {
      user_registered: 'Registered',
      login: 'Logged in',
      logout: 'Logged out',
      password_reset_requested: 'Asked for a password reset link',
      password_reset_completed: 'Reset the password',
      password_changed: 'Changed the password',
      token_created: 'Created an API token',
      token_revoked: 'Revoked an API token',
      session_revoked: 'Ended a session',
      role_added: 'Was given a role',
      role_removed: 'Lost a role',
      user_created: 'Account created',
      user_disabled: 'Account disabled',
      user_enabled: 'Account enabled',
      user_deleted: 'Account deleted',
      email_confirmed: 'Confirmed the email address',
      email_changed: 'Changed the email address',
      mfa_enabled: 'Set up an authenticator app',
      mfa_disabled: 'Removed the authenticator app',
      recovery_code_used: 'Used a recovery code',
      identity_linked: 'Linked a sign-in provider',
      identity_unlinked: 'Unlinked a sign-in provider',
      org_created: 'Created an organization',
      org_renamed: 'Renamed an organization',
      org_deleted: 'Deleted an organization',
      member_added: 'Joined an organization',
      member_removed: 'Left an organization',
      member_roles_changed: 'Roles in an organization changed',
      invitation_created: 'Invited to an organization',
      invitation_revoked: 'Invitation to an organization revoked',
      invitation_accepted: 'Accepted an invitation to an organization',
      impersonation_started: 'Another user started acting as you',
      impersonation_ended: 'Another user stopped acting as you',
      rate_limited: 'Refused: too many attempts',
      csrf_rejected: 'Refused: came from another site',
      audit_pruned: 'Older records removed',
    },
    succeeded: 'Done',
    failed: (reason) => (reason ? `Refused (${reason})` : 'Refused'),
    empty: 'Nothing yet.',
    older: 'Older',
  },
};
