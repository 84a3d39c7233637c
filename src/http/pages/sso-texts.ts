/**
 * The words of sign-in through identity providers: the login page's buttons, the refusals' page,
 * and the account page of linked identities. Part of `PageTexts` (texts.ts).
 */
import type { SsoFailureReason } from '../../errors.js';

export interface SsoTexts {
  sso: {
    /** The login page's button for a provider. */
    signInWith(name: string): string;
    /** Between the password form and the providers' buttons. */
    or: string;
    failedTitle: string;
    /** What failed, in words, by the refusal's `reason`. */
    failed: Record<SsoFailureReason, string>;
    identitiesTitle: string;
    identitiesIntro: string;
    caption(email: string): string;
    none: string;
    columns: { provider: string; email: string; linked: string; actions: string };
    unlink: string;
    unlinkLabel(provider: string): string;
    linkHeading: string;
    linkWith(name: string): string;
    linked: string;
    unlinked: string;
    lastMethod: string;
    inUse: string;
  };
}

export const defaultSsoTexts: SsoTexts = {
  sso: {
    signInWith: (name) => `Sign in with ${name}`,
    or: 'Or',
    failedTitle: 'Sign-in failed',
    failed: {
      state:
        'This sign-in was not started in this browser, was used already, or took too long. Start again from the login page.',
      nonce: "The provider's answer was not made for this sign-in, so it was refused. Start again from the login page.",
      issuer: 'The answer did not come from the provider this site trusts, so it was refused.',
      signature: "The provider's answer was not signed with the provider's keys, so it was refused.",
      audience: "The provider's answer was made for another application, so it was refused.",
      provider_error: 'The provider did not sign you in (you may have cancelled, or it failed). You can try again.',
      email_unverified:
        'The provider has not verified your email address, so no account can be made with it. ' +
        'Verify it there, or register here.',
      not_linked:
        'No account here is linked to this sign-in. If you have an account, sign in with your ' +
        'password, then link the provider from your account page (Sign-in providers).',
    },
    identitiesTitle: 'Sign-in providers',
    identitiesIntro:
      'Accounts at other services you can sign in with. Link one while signed in here; an address ' +
      'alone never links it.',
    caption: (email) => `Providers linked to ${email}`,
    none: 'No provider is linked yet.',
    columns: { provider: 'Provider', email: 'Address there', linked: 'Linked', actions: 'Actions' },
    unlink: 'Unlink',
    unlinkLabel: (provider) => `Unlink ${provider}`,
    linkHeading: 'Link a provider',
    linkWith: (name) => `Link ${name}`,
    linked: 'The provider is linked: you can sign in with it from now on.',
    unlinked: 'The provider is unlinked.',
    lastMethod:
      'This provider is your only way to sign in. Set a password (Forgot your password? on the ' +
      'login page), or add a passkey or another provider first.',
    inUse: 'This account at the provider is linked to another account here.',
  },
};
