/**
 * The bundled list of common passwords (SERVICE_AUTH_PASSWORD_BLOCKLIST_ENABLED): the ~49,000
 * entries zxcvbn-ts ships, compiled from public breach corpora. Loaded on first use only.
 */
import { dictionary } from '@zxcvbn-ts/language-common';

let common: Set<string> | undefined;

/** Case-insensitive: "Password123" is as guessable as "password123". */
export function isCommonPassword(password: string): boolean {
  common ??= new Set(dictionary['passwords-common'].map((entry) => entry.toLowerCase()));
  return common.has(password.toLowerCase());
}
