/**
 * The password rules. Lengths count Unicode code points after NFC normalisation, so "é" typed as
 * one or two code points counts once. Every failed rule is reported, not just the first, so that
 * a user fixes everything in one go.
 */
import type { PasswordPolicy } from '../config/config.js';
import { PasswordRulesError, ValidationError, type PasswordRuleFailure } from '../errors.js';
import { isCommonPassword } from './blocklist.js';

/** The form a password is checked and hashed in. */
export function normalizePassword(password: string): string {
  return password.normalize('NFC');
}

export function passwordFailures(password: string, policy: PasswordPolicy): PasswordRuleFailure[] {
  const normalized = normalizePassword(password);
  const length = [...normalized].length;
  const failures: PasswordRuleFailure[] = [];
  if (length < policy.minLength) {
    failures.push({ rule: 'min_length', message: `must be at least ${policy.minLength} characters long` });
  }
  if (length > policy.maxLength) {
    failures.push({ rule: 'max_length', message: `must be at most ${policy.maxLength} characters long` });
  }
  if (policy.complexity) {
    if (!/[A-Z]/.test(normalized))
      failures.push({ rule: 'uppercase', message: 'must contain an uppercase letter (A-Z)' });
    if (!/[a-z]/.test(normalized))
      failures.push({ rule: 'lowercase', message: 'must contain a lowercase letter (a-z)' });
    if (!/[0-9]/.test(normalized)) failures.push({ rule: 'digit', message: 'must contain a digit (0-9)' });
    // Any character that is not an ASCII letter or digit counts as special, spaces and emoji included.
    if (!/[^A-Za-z0-9]/.test(normalized)) {
      failures.push({ rule: 'special', message: 'must contain a special character (anything but A-Z, a-z and 0-9)' });
    }
  }
  if (policy.blocklist && isCommonPassword(normalized)) {
    failures.push({ rule: 'blocklisted', message: 'is too common: it appears in a list of frequently used passwords' });
  }
  return failures;
}

/**
 * Throws a PasswordRulesError listing every failed rule. A password that is not well-formed
 * Unicode (a lone surrogate) is refused first, as a 400: hashed, it would be encoded with U+FFFD
 * in its place, and two different passwords would become one.
 */
export function assertPasswordRules(password: string, policy: PasswordPolicy): void {
  if (typeof password !== 'string' || !password.isWellFormed()) {
    throw new ValidationError([
      { field: 'password', message: 'must be text without lone surrogates (well-formed Unicode)' },
    ]);
  }
  const failures = passwordFailures(password, policy);
  if (failures.length > 0) throw new PasswordRulesError(failures);
}
