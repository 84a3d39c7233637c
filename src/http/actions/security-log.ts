/**
 * The caller's own security log (docs/audit.md): their audit records, 50 a page, newest first,
 * for `GET /api/security-log` and the `/security-log` page alike. Only the records naming the
 * caller as their user; never a record's hash, nor another user's. A session or a token that
 * carries every scope reads it: it tells what every credential of the account did.
 */
import type { Request } from 'express';
import type { AuditApi } from '../../audit/audit-log.js';
import type { AuditRecord } from '../../audit/records.js';
import { ValidationError } from '../../errors.js';
import { assertWholeAccount } from './tokens.js';

export const SECURITY_LOG_PAGE = 50;

/** A record as its user sees it. */
export interface SecurityEvent {
  id: number;
  at: string;
  type: AuditRecord['type'];
  outcome: AuditRecord['outcome'];
  email: string | null;
  ip: string | null;
  user_agent: string | null;
  reason: string | null;
  detail: AuditRecord['detail'];
}

export interface SecurityLogPage {
  events: SecurityEvent[];
  /** The `before` of the next page, or null on the last. */
  next: number | null;
}

export async function securityLogOf(audit: Pick<AuditApi, 'query'>, req: Request): Promise<SecurityLogPage> {
  assertWholeAccount(
    req,
    'The security log needs a session, or a token made without scopes and without an organization',
  );
  const before = beforeOf(req.query['before']);
  const records = await audit.query({ userId: req.user!.id, before, limit: SECURITY_LOG_PAGE + 1 });
  const events = records.slice(0, SECURITY_LOG_PAGE).map(toEvent);
  return { events, next: records.length > SECURITY_LOG_PAGE ? events[events.length - 1]!.id : null };
}

function beforeOf(value: unknown): number | undefined {
  if (value === undefined) return undefined;
  if (typeof value !== 'string' || !/^[1-9]\d{0,14}$/.test(value)) {
    throw new ValidationError([{ field: 'before', message: 'must be a record id: a whole number from 1' }]);
  }
  return Number(value);
}

function toEvent(record: AuditRecord): SecurityEvent {
  return {
    id: record.id,
    at: record.at.toISOString(),
    type: record.type,
    outcome: record.outcome,
    email: record.email,
    ip: record.ip,
    user_agent: record.userAgent,
    reason: record.reason,
    detail: record.detail,
  };
}
