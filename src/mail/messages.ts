/**
 * The mails the package sends. A mail with a link carries the only copy of its token anywhere;
 * notices carry no link that acts on the account.
 */
import type { Mail } from './transport.js';

/** One mail from its lines: a line `[text](url)` is a link, the rest plain paragraphs. */
function compose(to: string, subject: string, lines: (string | { text: string; url: string })[]): Mail {
  const escape = (value: string) =>
    value.replace(/&/g, '&amp;').replace(/"/g, '&quot;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
  return {
    to,
    subject,
    text: lines.map((line) => (typeof line === 'string' ? line : `${line.text}:\n${line.url}`)).join('\n\n'),
    html: lines
      .map((line) =>
        typeof line === 'string'
          ? `<p>${escape(line)}</p>`
          : `<p><a href="${escape(line.url)}">${escape(line.text)}</a></p>`,
      )
      .join('\n'),
  };
}

function within(ttlSeconds: number): string {
  const minutes = Math.round(ttlSeconds / 60);
  if (minutes >= 2 * 1440 && minutes % 1440 === 0) return `${minutes / 1440} days`;
  return minutes >= 120 && minutes % 60 === 0 ? `${minutes / 60} hours` : `${minutes} minutes`;
}

/** The password-reset mail. */
export function passwordResetMail(to: string, link: string, ttlSeconds: number): Mail {
  return compose(to, 'Reset your password', [
    'Someone (hopefully you) asked to reset the password of your account.',
    { text: `Open this link within ${within(ttlSeconds)} to choose a new password`, url: link },
    'If you did not ask for this, ignore this mail: your password stays as it is.',
  ]);
}

/** A new account's address, to confirm (SERVICE_AUTH_EMAIL_CONFIRMATION). */
export function confirmAddressMail(to: string, link: string, ttlSeconds: number): Mail {
  return compose(to, 'Confirm your email address', [
    'Someone (hopefully you) created an account with this email address.',
    { text: `Open this link within ${within(ttlSeconds)} to confirm it`, url: link },
    'If it was not you, ignore this mail: the account stays unusable.',
  ]);
}

/** Registering an address that has an account: a notice, no link that acts. */
export function alreadyRegisteredMail(to: string, links: { login: string; forgot: string }): Mail {
  return compose(to, 'Someone tried to register with your email address', [
    'Someone (perhaps you) tried to create an account with this email address, which already has one. Nothing was changed.',
    { text: 'If it was you, log in', url: links.login },
    { text: 'or, if you forgot your password, choose a new one', url: links.forgot },
    'If it was not you, ignore this mail.',
  ]);
}

/** The new address of an email change, to confirm. */
export function emailChangeMail(to: string, link: string, ttlSeconds: number): Mail {
  return compose(to, 'Confirm your new email address', [
    'Someone (hopefully you) asked to move an account to this email address.',
    { text: `Open this link within ${within(ttlSeconds)} to confirm the change`, url: link },
    'If it was not you, ignore this mail: nothing changes.',
  ]);
}

/** The old address of an email change: told, with no link. */
export function emailChangeNoticeMail(to: string, newAddress: string): Mail {
  return compose(to, 'Your account’s email address is being changed', [
    `Someone logged in to your account asked to change its email address to ${newAddress}. The ` +
      `change happens once that address confirms it.`,
    'If it was not you, change your password now and end your other sessions.',
  ]);
}

/** An invitation to join an organization: the same mail whether or not the address has an account. */
export function invitationMail(to: string, orgName: string, link: string, ttlSeconds: number): Mail {
  return compose(to, `You are invited to join ${orgName}`, [
    `Someone invited this email address to join the organization ${orgName}.`,
    { text: `Open this link within ${within(ttlSeconds)} to accept`, url: link },
    'You accept signed in with an account of this address, confirmed. Without one, register ' +
      'with this address first, then open the link again.',
    'If you do not want to join, ignore this mail.',
  ]);
}
