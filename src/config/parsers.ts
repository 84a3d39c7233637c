/**
 * The parsers of configuration values: each takes the raw value (from the application's settings
 * or the environment) and the key, and returns the parsed value or throws a ConfigError naming the
 * key, the value and the accepted form.
 */
import { parseRate, type Rate } from './rates.js';
import { ConfigError } from './error.js';
import { redactUrl } from './redact.js';
import { sqliteFolderProblem } from './sqlite-folder.js';

export function boolean(value: unknown, key: string): boolean {
  if (typeof value === 'boolean') return value;
  if (typeof value === 'string') {
    const word = value.trim().toLowerCase();
    if (['true', '1', 'yes'].includes(word)) return true;
    if (['false', '0', 'no'].includes(word)) return false;
  }
  if (value === 1 || value === 0) return value === 1;
  throw new ConfigError(key, value, 'a boolean: true/false, 1/0 or yes/no');
}

export function integer(value: unknown, key: string): number {
  if (typeof value === 'number' && Number.isSafeInteger(value)) return value;
  if (typeof value === 'string' && /^\s*-?\d+\s*$/.test(value)) {
    const parsed = Number(value);
    if (Number.isSafeInteger(parsed)) return parsed;
  }
  throw new ConfigError(key, value, 'an integer');
}

/** An integer within bounds; `minKey` and `maxKey` name the keys the bounds come from, if any. */
export function integerBetween(min: number, max: number, minKey?: string, maxKey?: string) {
  const expected = `an integer from ${min}${minKey ? ` (${minKey})` : ''} to ${max}${maxKey ? ` (${maxKey})` : ''}`;
  return (value: unknown, key: string): number => {
    const parsed = integerOr(value, key, expected);
    if (parsed < min || parsed > max) throw new ConfigError(key, value, expected);
    return parsed;
  };
}

function integerOr(value: unknown, key: string, expected: string): number {
  try {
    return integer(value, key);
  } catch {
    throw new ConfigError(key, value, expected);
  }
}

export function rate(value: unknown, key: string): Rate {
  const expected = 'a rate such as "10 per minute" or "10/minute" (unit second, minute, hour or day; count at least 1)';
  if (typeof value !== 'string') throw new ConfigError(key, value, expected);
  try {
    return parseRate(value);
  } catch {
    throw new ConfigError(key, value, expected);
  }
}

/** A rate, or a bare count meaning that many per minute (SERVICE_AUTH_RATE_LIMIT_ORGS: "5" is "5 per minute"). */
export function rateOrCountPerMinute(value: unknown, key: string): Rate {
  const bare = typeof value === 'string' && /^\s*\d+\s*$/.test(value);
  const count = typeof value === 'number' ? String(value) : bare ? value.trim() : undefined;
  if (count === undefined) return rate(value, key);
  try {
    return parseRate(`${count} per minute`);
  } catch {
    throw new ConfigError(
      key,
      value,
      'a count of at least 1 (per minute), or a rate such as "5 per minute" or "5/minute"',
    );
  }
}

export function urlPath(value: unknown, key: string): string {
  const expected = 'a path below the root, such as /service-auth';
  // Not "/" itself: links are built as prefix + "/login", and "//login" would name another host.
  if (
    typeof value !== 'string' ||
    !/^\/[A-Za-z0-9._~!$&'()*+,;=:@/-]*[A-Za-z0-9._~!$&'()*+,;=:@-]\/?$/.test(value) ||
    value.includes('//')
  ) {
    throw new ConfigError(key, value, expected);
  }
  // Express mounts "/auth" and "/auth/" the same way; keep one spelling for building links.
  return value.replace(/\/$/, '');
}

export function databaseUrl(value: unknown, key: string): string {
  const expected = 'sqlite:<path>, sqlite::memory: or postgresql://user@host:port/database';
  if (typeof value === 'string') {
    if (/^sqlite:.+/.test(value)) {
      const problem = sqliteFolderProblem(value);
      if (problem !== undefined) throw new ConfigError(key, value, problem);
      return value;
    }
    if (/^postgres(ql)?:\/\/./.test(value)) {
      try {
        new URL(value);
        return value;
      } catch {
        // fall through to the error
      }
    }
  }
  throw new ConfigError(key, redactUrl(String(value)), expected);
}

export function httpUrl(value: unknown, key: string): string {
  const url = urlWithScheme(['http:', 'https:'])(value, key);
  // Links are built as publicUrl + prefix + path: keep no trailing slash.
  return url.replace(/\/+$/, '');
}

export function urlWithScheme(schemes: string[]) {
  const expected = `a URL starting with ${schemes.map((s) => `${s}//`).join(' or ')}`;
  return (value: unknown, key: string): string => {
    if (typeof value === 'string') {
      try {
        const url = new URL(value);
        if (schemes.includes(url.protocol) && url.host) return value;
      } catch {
        // fall through to the error
      }
    }
    throw new ConfigError(key, typeof value === 'string' ? redactUrl(value) : value, expected);
  };
}

export function matching(pattern: RegExp, expected: string) {
  return (value: unknown, key: string): string => {
    if (typeof value === 'string' && pattern.test(value)) return value;
    throw new ConfigError(key, value, expected);
  };
}

/**
 * A secret of at least `minLength` characters. A refused value is never echoed: the error says
 * only how long it was.
 */
export function secret(minLength: number) {
  return (value: unknown, key: string): string => {
    if (typeof value === 'string' && value.length >= minLength) return value;
    const described = typeof value === 'string' ? `[a secret of ${value.length} characters]` : typeof value;
    throw new ConfigError(
      key,
      described,
      `a secret of at least ${minLength} characters (for instance 32 random bytes, base64url)`,
    );
  };
}

export function nonEmptyString(expected: string) {
  return (value: unknown, key: string): string => {
    if (typeof value === 'string' && value.trim() !== '') return value;
    throw new ConfigError(key, value, expected);
  };
}

export function mailAddress(value: unknown, key: string): string {
  // "addr@host" or "Display Name <addr@host>", as nodemailer accepts them.
  if (typeof value === 'string' && /^(?:[^<>@]*<[^\s<>@]+@[^\s<>@]+>|[^\s<>@]+@[^\s<>@]+)$/.test(value.trim())) {
    return value.trim();
  }
  throw new ConfigError(key, value, 'a mail address such as no-reply@example.com or "Example <no-reply@example.com>"');
}

/** Role names, comma-separated ("member, reader") or as a list; each 1 to 64 of A-Z a-z 0-9 _ . : -. */
export function roleNames(value: unknown, key: string): string[] {
  const expected = 'role names separated by commas, each 1 to 64 of A-Z a-z 0-9 _ . : -';
  const names =
    typeof value === 'string'
      ? value
          .split(',')
          .map((name) => name.trim())
          .filter(Boolean)
      : value;
  if (
    !Array.isArray(names) ||
    !names.every((name) => typeof name === 'string' && /^[A-Za-z0-9_.:-]{1,64}$/.test(name))
  ) {
    throw new ConfigError(key, value, expected);
  }
  return [...new Set(names as string[])];
}

/** `parse`, refusing an empty list. */
export function nonEmpty<T>(parse: (value: unknown, key: string) => T[]) {
  return (value: unknown, key: string): T[] => {
    const parsed = parse(value, key);
    if (parsed.length > 0) return parsed;
    throw new ConfigError(key, value, 'at least one name');
  };
}
