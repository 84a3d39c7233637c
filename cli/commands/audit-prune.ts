import { Command } from 'clipanion';
import { ServiceAuthCommand } from './base.js';

export class AuditPruneCommand extends ServiceAuthCommand {
  static override paths = [['auth', 'audit', 'prune']];

  static override usage = Command.Usage({
    category: 'Audit log',
    description: 'Remove the audit records older than the retention now',
    details: `
      Removes the audit log's rows older than \`SERVICE_AUTH_AUDIT_RETENTION_DAYS\` (default 365 days), always
      keeping the newest row, and prints how many went. A running application does this every hour; this is for a
      process that is not running, or for now.

      The removal appends an \`audit_pruned\` record (actor \`cli\`) holding the id and hash of the last row
      removed, so that \`auth audit verify\` still checks the chain from the first row left. With
      \`SERVICE_AUTH_AUDIT_ENABLED\` false, nothing is removed.
    `,
    examples: [
      ['Prune now', '$0 auth audit prune'],
      ['Keep 90 days', 'SERVICE_AUTH_AUDIT_RETENTION_DAYS=90 $0 auth audit prune'],
    ],
  });

  protected override async run(): Promise<void> {
    const audit = (await this.auth()).audit;
    const { enabled, retentionDays } = audit.settings;
    if (!enabled) {
      this.print('The audit log is off (SERVICE_AUTH_AUDIT_ENABLED is false): nothing was removed');
      return;
    }
    const removed = await audit.prune();
    this.print(
      `Removed ${removed} ${removed === 1 ? 'row' : 'rows'} older than ${retentionDays} ` +
        `${retentionDays === 1 ? 'day' : 'days'} (SERVICE_AUTH_AUDIT_RETENTION_DAYS)`,
    );
  }
}
