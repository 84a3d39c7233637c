/** SERVICE_AUTH_PUBLIC_URL's stand-in outside production. */
import { ConfigError } from './error.js';

/**
 * The base of links when SERVICE_AUTH_PUBLIC_URL is not set: none in production, where mail
 * pointing at localhost would reach real users; elsewhere localhost on PORT, said aloud, since the
 * port the application listens on is not known here and a link to the wrong one fails silently.
 */
export function assumedPublicUrl(production: boolean, warn: (message: string) => void): string {
  if (production) {
    throw new ConfigError(
      'SERVICE_AUTH_PUBLIC_URL',
      undefined,
      "an http(s) URL: it is required when app.get('env') is 'production'",
    );
  }
  const url = `http://localhost:${process.env['PORT'] || 3000}`;
  warn(
    `SERVICE_AUTH_PUBLIC_URL is not set, so links in mail (password resets, email ` +
      `confirmations), passkeys and the authenticator app's issuer assume ${url}; ` +
      'set it to the address users reach this application at (it is required in production)',
  );
  return url;
}
