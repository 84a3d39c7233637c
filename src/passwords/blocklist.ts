/**
 * The bundled list of common passwords (SERVICE_AUTH_PASSWORD_BLOCKLIST_ENABLED): the ~49,000
 * entries zxcvbn-ts ships, compiled from public breach corpora. Loaded on first use only.
 */
import { createRequire } from 'node:module';

let common: Set<string> | undefined;

/** Case-insensitive: "Password123" is as guessable as "password123". */
export function isCommonPassword(password: string): boolean {
  common ??= loadCommonPasswords();
  return common.has(password.toLowerCase());
}

/** Required on first use, not imported above: only an application with the blocklist on pays its load. */
function loadCommonPasswords(): Set<string> {
  const { dictionary } = createRequire(import.meta.url)(
    '@zxcvbn-ts/language-common',
  ) as typeof import('@zxcvbn-ts/language-common');
  return new Set(dictionary['passwords-common'].map((entry) => entry.toLowerCase()));
}
