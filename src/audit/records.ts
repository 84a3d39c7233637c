/**
 * What an audit record holds, and the two functions the chain rests on: a record's canonical JSON
 * and the hash linking it to the one before (docs/audit.md). Everything that writes or checks the
 * chain (chain.ts, the PostgreSQL function of the audit migration) computes exactly these.
 */
import { sha256Hex } from '../secrets.js';

/** Every type of record (docs/audit.md); `audit_pruned` is the one retention leaves of what it removed. */
export const AUDIT_TYPES = [
  'user_registered',
  'login',
  'logout',
  'password_reset_requested',
  'password_reset_completed',
  'password_changed',
  'token_created',
  'token_revoked',
  'session_revoked',
  'role_added',
  'role_removed',
  'user_created',
  'user_disabled',
  'user_enabled',
  'user_deleted',
  'email_confirmed',
  'email_changed',
  'mfa_enabled',
  'mfa_disabled',
  'recovery_code_used',
  'identity_linked',
  'identity_unlinked',
  'org_created',
  'org_renamed',
  'org_deleted',
  'member_added',
  'member_removed',
  'member_roles_changed',
  'invitation_created',
  'invitation_revoked',
  'invitation_accepted',
  'impersonation_started',
  'impersonation_ended',
  'rate_limited',
  'csrf_rejected',
  'audit_pruned',
] as const;

export type AuditType = (typeof AUDIT_TYPES)[number];
export type AuditOutcome = 'success' | 'failure';
/** Who acted: a request to the package's routes, the `auth` CLI, or an application's own code. */
export type Actor = 'http' | 'cli' | 'api';

/** Ids, names and flags only: never a secret (a password, a token, a cookie, a code). */
export type AuditDetail = Record<string, string | number | boolean | null>;

/** What the code that acts says happened; who and where from come from the audit context. */
export interface AuditEntry {
  type: AuditType;
  /** Default `success`. */
  outcome?: AuditOutcome;
  userId?: number | null;
  /** As submitted; it is normalised (trimmed, lower case) here. */
  email?: string | null;
  /** The problem `code` of a failure. */
  reason?: string | null;
  detail?: AuditDetail;
}

/** A record ready for the chain: every field as it will be stored, the detail as its stored JSON text. */
export interface AuditDraft {
  at: Date;
  type: AuditType;
  outcome: AuditOutcome;
  userId: number | null;
  email: string | null;
  ip: string | null;
  userAgent: string | null;
  reason: string | null;
  detail: string;
}

/** A record as written and read back: `auth.on('audit')`, `auth.audit.query`, `auth audit --json`. */
export interface AuditRecord {
  id: number;
  at: Date;
  type: AuditType;
  outcome: AuditOutcome;
  userId: number | null;
  email: string | null;
  ip: string | null;
  userAgent: string | null;
  reason: string | null;
  detail: AuditDetail;
  hash: string;
}

export const MAX_USER_AGENT = 256;
const MAX_EMAIL = 320;
const MAX_SHORT = 64;

/**
 * Text as stored: well-formed (a lone surrogate would not survive PostgreSQL's UTF-8, and the hash
 * would no longer match), no control characters (PostgreSQL refuses NUL), at most `max` characters.
 */
export function storedText(value: string | null | undefined, max: number): string | null {
  if (value === null || value === undefined) return null;
  // eslint-disable-next-line no-control-regex
  const cleaned = String(value)
    .toWellFormed()
    .replace(/[\u0000-\u001f\u007f-\u009f]/g, '\ufffd');
  const characters = Array.from(cleaned);
  return characters.length > max ? characters.slice(0, max).join('') : cleaned;
}

/** The detail's JSON text, keys sorted, strings stored as any text is. */
export function detailJson(detail: AuditDetail | undefined): string {
  const entries = Object.entries(detail ?? {})
    .filter(([, value]) => value !== undefined)
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
    .map(([key, value]) => [
      storedText(key, MAX_SHORT)!,
      typeof value === 'string' ? storedText(value, MAX_USER_AGENT) : value,
    ]);
  return JSON.stringify(Object.fromEntries(entries));
}

export function draftOf(
  entry: AuditEntry,
  context: { ip?: string | null; userAgent?: string | null; actor: Actor; impersonator?: number; by?: number },
  at = new Date(),
): AuditDraft {
  const email =
    entry.email === null || entry.email === undefined
      ? null
      : storedText(String(entry.email).trim().toLowerCase(), MAX_EMAIL);
  return {
    at,
    type: entry.type,
    outcome: entry.outcome ?? 'success',
    userId: entry.userId ?? null,
    email,
    ip: storedText(context.ip, MAX_SHORT),
    userAgent: storedText(context.userAgent, MAX_USER_AGENT),
    reason: storedText(entry.reason, MAX_SHORT),
    // While a user acts as another, every record names the one really acting (docs/impersonation.md);
    // the admin console's, the operator acting (unless the entry names one itself: the organizations' records do).
    detail: detailJson({
      ...(context.by !== undefined && { by: context.by }),
      ...entry.detail,
      actor: context.actor,
      ...(context.impersonator === undefined ? {} : { impersonator: context.impersonator }),
    }),
  };
}

/** The canonical JSON a row's hash covers: every stored field but the id (the chain is the order) and the hash. */
export function canonicalJson(row: AuditDraft): string {
  return JSON.stringify([
    row.at.toISOString(),
    row.type,
    row.outcome,
    row.userId,
    row.email,
    row.ip,
    row.userAgent,
    row.reason,
    row.detail,
  ]);
}

/** SHA-256 of the previous row's hash (empty for the first row ever) and this row's canonical JSON, as hex. */
export function chainHash(previous: string, canonical: string): string {
  return sha256Hex(previous + canonical);
}
