import { Command, Option } from 'clipanion';
import type { AuditRecord } from '../../src/audit/records.js';
import {
  AUDIT_QUERY_RULES,
  DEFAULT_LIMIT,
  isAuditType,
  limitCount,
  MAX_LIMIT,
  recordId,
  sinceTime,
} from './audit-options.js';
import { formatTable, tableTime } from './table.js';
import { ServiceAuthCommand } from './base.js';

export class AuditCommand extends ServiceAuthCommand {
  static override paths = [['auth', 'audit']];

  static override usage = Command.Usage({
    category: 'Audit log',
    description: 'Show the audit log, newest first',
    details: `
      Prints a table of the audit log's records, newest first: ID, At (UTC), Type, Outcome, User (the user's
      id), Email, IP, Reason (the problem code of a failure), Actor (\`http\`, \`cli\` or \`api\`).

      \`--email\` keeps the records of one person: those carrying the address, and those carrying the id of
      the user it names (a token's, a session's, a second factor's records carry the id, not the address); an email
      need not belong to a user (a failed login for an unknown address, a deleted user). \`--user-id\` keeps the
      records carrying that user's id (a deleted user's too, by the id the table showed), and \`--type\` those of
      one type. \`--since\` takes a date, \`2026-11-01\` (from midnight UTC), or a time back from now, \`7d\` or
      \`12h\`. \`--limit\` shows at most that many records, from 1 to ${MAX_LIMIT} (default ${DEFAULT_LIMIT});
      \`--before\` an id shows the records older than that one, the next page after a page that ended with it.

      With \`--json\`, prints a JSON array of the records with the audit table's field names, as the security
      log answers them: \`{ id, at, type, outcome, user_id, email, ip, user_agent, reason, detail, hash }\`.
    `,
    examples: [
      ['The latest records', '$0 auth audit'],
      ["A week of one user's records", '$0 auth audit --email ada@example.com --since 7d'],
      ['The records of the user with id 42', '$0 auth audit --user-id 42'],
      ['The page of records after the one that ended with record 5120', '$0 auth audit --before 5120'],
      [
        'Failed logins since the first of November, as JSON',
        '$0 auth audit --type login --since 2026-11-01 --limit 1000 --json | jq \'.[] | select(.outcome == "failure")\'',
      ],
    ],
  });

  static override schema = AUDIT_QUERY_RULES;

  email = Option.String('--email', { description: 'Only the records of this email address, or of the user it names' });
  userId = Option.String('--user-id', { description: 'Only the records of the user with this id' });
  type = Option.String('--type', { description: 'Only records of this type, e.g. login, role_added' });
  since = Option.String('--since', {
    description: 'Only records from this date (YYYY-MM-DD, UTC) or this long ago (7d, 12h) on',
  });
  limit = Option.String('--limit', {
    description: `At most this many records, 1 to ${MAX_LIMIT} (default ${DEFAULT_LIMIT})`,
  });
  before = Option.String('--before', { description: 'Only records older than the one with this id (the next page)' });
  json = Option.Boolean('--json', false, { description: 'Print a JSON array instead of a table' });

  protected override async run(): Promise<void> {
    const auth = await this.auth();
    // The schema has refused anything these would not read.
    const records = await auth.audit.query({
      email: this.email,
      userId: this.userId === undefined ? undefined : recordId(this.userId),
      type: this.type !== undefined && isAuditType(this.type) ? this.type : undefined,
      since: this.since === undefined ? undefined : sinceTime(this.since),
      limit: (this.limit === undefined ? undefined : limitCount(this.limit)) ?? DEFAULT_LIMIT,
      before: this.before === undefined ? undefined : recordId(this.before),
    });
    if (this.json) {
      this.print(JSON.stringify(records.map(asJson), null, 2));
    } else if (records.length === 0) {
      this.print('No records.');
    } else {
      this.print(
        formatTable(['ID', 'At', 'Type', 'Outcome', 'User', 'Email', 'IP', 'Reason', 'Actor'], records.map(recordRow)),
      );
    }
  }
}

/** A record with the audit table's field names (docs/audit.md), as `GET /api/security-log` answers them; the id first. */
function asJson({
  id,
  at,
  type,
  outcome,
  userId,
  email,
  ip,
  userAgent,
  reason,
  detail,
  hash,
}: AuditRecord): Record<string, unknown> {
  return { id, at, type, outcome, user_id: userId, email, ip, user_agent: userAgent, reason, detail, hash };
}

function recordRow(record: AuditRecord): string[] {
  const cell = (value: string | number | boolean | null | undefined): string =>
    value === null || value === undefined ? '-' : String(value);
  return [
    String(record.id),
    tableTime(record.at),
    record.type,
    record.outcome,
    cell(record.userId),
    cell(record.email),
    cell(record.ip),
    cell(record.reason),
    cell(record.detail['actor']),
  ];
}
