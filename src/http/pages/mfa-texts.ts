/**
 * The words of the second factor's pages: `/mfa` (setting up an authenticator app, the recovery
 * codes once, removing it) and the login's second step. Part of `PageTexts` (texts.ts).
 */

export interface MfaTexts {
  mfa: {
    title: string;
    off: string;
    setUp: string;
    pendingNote: string;
    scan: string;
    orType: string;
    code: string;
    codeHint: string;
    confirm: string;
    on(codesLeft: number): string;
    codesTitle: string;
    codesIntro: string;
    done: string;
    removeIntro: string;
    remove: string;
    removed: string;
    invalidCode: string;
    alreadyOn: string;
  };
  passkeys: {
    title: string;
    intro: string;
    caption(email: string): string;
    none: string;
    columns: { name: string; created: string; lastUsed: string; actions: string };
    never: string;
    nameLabel: string;
    nameHint: string;
    /** Adding a passkey takes the password (a passkey signs in without one). */
    passwordLabel: string;
    passwordHint: string;
    passwordRefused: string;
    add: string;
    remove: string;
    removeLabel(name: string): string;
    removed: string;
    added: string;
    failed: string;
    /** Without JavaScript (or WebAuthn), passkeys cannot be made here. */
    needsScript: string;
    /** The login page's button, and what it says when the browser or the passkey refused. */
    signIn: string;
    signInFailed: string;
  };
  secondStep: {
    title: string;
    intro: string;
    code: string;
    submit: string;
    useRecovery: string;
    usePasskey: string;
    passkeyFailed: string;
    recoveryCode: string;
    recoveryHint: string;
    recoverySubmit: string;
    expired: string;
  };
}

export const defaultMfaTexts: MfaTexts = {
  mfa: {
    title: 'Two-step login',
    off: 'Logging in takes your password alone. With an authenticator app, it also takes a code from your phone.',
    setUp: 'Set up an authenticator app',
    pendingNote: 'A set-up was started and not finished; start it again to get a new code to scan.',
    scan: 'Scan this code with your authenticator app (Google Authenticator, 1Password, Aegis, …):',
    orType: 'Or type this key into the app:',
    code: 'Code from the app',
    codeHint: 'The 6 digits the app shows now.',
    confirm: 'Turn on',
    on: (codesLeft) =>
      `Logging in takes your password and a code from your authenticator app. ${codesLeft} ` +
      `recovery ${codesLeft === 1 ? 'code' : 'codes'} left.`,
    codesTitle: 'Your recovery codes',
    codesIntro: 'Keep these somewhere safe: each logs you in once if you lose your phone. They are shown only now.',
    done: 'I have saved them',
    removeIntro: 'To log in with your password alone again, remove the app. Your recovery codes go with it.',
    remove: 'Remove the authenticator app',
    removed: 'The authenticator app was removed: logging in takes your password alone.',
    invalidCode: 'That code is not right. Type the 6 digits the app shows now.',
    alreadyOn: 'An authenticator app is already set up.',
  },
  passkeys: {
    title: 'Passkeys',
    intro:
      'A passkey signs you in without a password: your phone or computer unlocks it with your ' +
      'face, fingerprint or screen lock.',
    caption: (email) => `The passkeys of ${email} (times in UTC)`,
    none: 'No passkeys yet.',
    columns: { name: 'Name', created: 'Added', lastUsed: 'Last used', actions: 'Actions' },
    never: 'never',
    nameLabel: 'Name of the new passkey',
    nameHint: 'To tell your passkeys apart, like “Laptop”.',
    passwordLabel: 'Your password',
    passwordHint: 'A passkey signs you in without it, so adding one takes it.',
    passwordRefused: 'That password is not right. Enter your password as it is now.',
    add: 'Add a passkey',
    remove: 'Remove',
    removeLabel: (name) => `Remove the passkey ${name}`,
    removed: 'The passkey was removed.',
    added: 'The passkey was added: you can sign in with it.',
    failed: 'That did not work: the browser or the passkey refused. Try again.',
    needsScript: 'Adding a passkey needs JavaScript and a browser that supports passkeys.',
    signIn: 'Sign in with a passkey',
    signInFailed: 'Signing in with a passkey did not work. Try again, or use your password.',
  },
  secondStep: {
    title: 'Enter your code',
    intro: 'Open your authenticator app and type the 6 digits it shows for this account.',
    code: 'Code',
    submit: 'Log in',
    useRecovery: 'Lost your phone? Use a recovery code',
    usePasskey: 'Use a passkey instead',
    passkeyFailed: 'That passkey did not work. Try again, or type a code.',
    recoveryCode: 'Recovery code',
    recoveryHint: 'One of the codes you saved when you set up the app; each works once.',
    recoverySubmit: 'Log in with the recovery code',
    expired: 'That login took too long, or too many codes were wrong. Log in again.',
  },
};
