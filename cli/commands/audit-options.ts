/**
 * The flags of `auth audit`: how each is read, and the rules (`static schema`) that refuse a bad
 * one before anything is opened, naming the flag as typed and what it accepts.
 */
import * as t from 'typanion';
import { AUDIT_TYPES, type AuditType } from '../../src/audit/records.js';

export const DEFAULT_LIMIT = 50;
/** What `auth.audit.query` answers at most; a larger `--limit` is refused rather than cut. */
export const MAX_LIMIT = 1000;

const HOUR_MS = 3_600_000;

export function isAuditType(text: string): text is AuditType {
  return (AUDIT_TYPES as readonly string[]).includes(text);
}

/**
 * `--since`: a date, `2026-11-01` (midnight UTC), or a time back from now, `7d` or `12h`;
 * undefined when it is neither, or names no time a Date can hold.
 */
export function sinceTime(text: string, now = Date.now()): Date | undefined {
  const back = /^(\d+)([dh])$/.exec(text);
  if (back) return validDate(new Date(now - Number(back[1]) * (back[2] === 'd' ? 24 : 1) * HOUR_MS));
  if (!/^\d{4}-\d{2}-\d{2}$/.test(text)) return undefined;
  const date = validDate(new Date(`${text}T00:00:00Z`));
  // `2026-02-30` parses as 2 March: only a day the calendar has is taken.
  return date?.toISOString().startsWith(text) ? date : undefined;
}

/** `--limit`: an integer from 1 to MAX_LIMIT, else undefined. */
export function limitCount(text: string): number | undefined {
  const count = /^\d+$/.test(text) ? Number(text) : NaN;
  return count >= 1 && count <= MAX_LIMIT ? count : undefined;
}

/** `--before` and `--user-id`: a record's or a user's id, a positive integer, else undefined. */
export function recordId(text: string): number | undefined {
  const id = /^\d{1,15}$/.test(text) ? Number(text) : NaN;
  return id >= 1 ? id : undefined;
}

export const AUDIT_QUERY_RULES = [
  rule(
    'type',
    (type) =>
      isAuditType(type) ||
      `--type ${JSON.stringify(type)} is not a type of record; the types are ${AUDIT_TYPES.join(', ')}`,
  ),
  rule(
    'since',
    (since) =>
      sinceTime(since) !== undefined ||
      `--since ${JSON.stringify(since)} is neither a date (YYYY-MM-DD, midnight UTC) nor a time back from now (7d, 12h)`,
  ),
  rule(
    'limit',
    (limit) =>
      limitCount(limit) !== undefined || `--limit ${JSON.stringify(limit)} is not an integer from 1 to ${MAX_LIMIT}`,
  ),
  rule(
    'before',
    (before) =>
      recordId(before) !== undefined || `--before ${JSON.stringify(before)} is not a record's id (a positive integer)`,
  ),
  rule(
    'userId',
    (userId) =>
      recordId(userId) !== undefined || `--user-id ${JSON.stringify(userId)} is not a user's id (a positive integer)`,
  ),
];

function validDate(date: Date): Date | undefined {
  return Number.isNaN(date.getTime()) ? undefined : date;
}

/** A check of one string option, when it is given: true, or the message that refuses it. */
function rule(
  field: string,
  check: (value: string) => true | string,
): t.LooseValidator<Record<string, unknown>, Record<string, unknown>> {
  return t.makeValidator<Record<string, unknown>>({
    test: (command, state) => {
      const value = command[field];
      const verdict = typeof value === 'string' ? check(value) : true;
      if (verdict === true) return true;
      // "<path>: <message>", as option-rules.ts words it; clipanion lower-cases the message's first letter.
      state?.errors?.push(`.: ${verdict}`);
      return false;
    },
  });
}
