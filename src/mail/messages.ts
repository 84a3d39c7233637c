import type { Mail } from './transport.js';

/** The password-reset mail. `link` already carries the token; it is the only copy sent anywhere. */
export function passwordResetMail(to: string, link: string, ttlSeconds: number): Mail {
  const minutes = Math.round(ttlSeconds / 60);
  const escaped = link.replace(/&/g, '&amp;').replace(/"/g, '&quot;').replace(/</g, '&lt;');
  return {
    to,
    subject: 'Reset your password',
    text: [
      'Someone (hopefully you) asked to reset the password of your account.',
      '',
      `Open this link within ${minutes} minutes to choose a new password:`,
      link,
      '',
      'If you did not ask for this, ignore this mail: your password stays as it is.',
    ].join('\n'),
    html: [
      '<p>Someone (hopefully you) asked to reset the password of your account.</p>',
      `<p><a href="${escaped}">Choose a new password</a> within ${minutes} minutes.</p>`,
      '<p>If you did not ask for this, ignore this mail: your password stays as it is.</p>',
    ].join('\n'),
  };
}
