import { Command, Option } from 'clipanion';
import type { ChainCheck } from '../../src/audit/chain.js';
import { CliFailure, EXIT_FAILURE } from './failures.js';
import { ServiceAuthCommand } from './base.js';

export class AuditVerifyCommand extends ServiceAuthCommand {
  static override paths = [['auth', 'audit', 'verify']];

  static override usage = Command.Usage({
    category: 'Audit log',
    description: "Check the audit log's hash chain",
    details: `
      Recomputes the hash of every row of the audit log, in id order from the first row left (after pruning,
      from the hash its \`audit_pruned\` record kept), and compares it with the stored one. Each hash covers its
      row and the hash before it, so a row changed, removed or moved breaks the chain there.

      Intact: prints \`Intact: N rows (#first to #last)\` and exits 0. Broken: names the first row that does
      not match, and why, on stderr, and exits 1; the rows before it verified.

      With \`--json\`, prints the check on stdout either way, \`{ intact: true, rows, first, last }\` or \`{
      intact: false, rows, brokenAt, why }\`, with the same exit status.
    `,
    examples: [
      ['Check the chain', '$0 auth audit verify'],
      ['From a monitoring job, as JSON', '$0 auth audit verify --json'],
    ],
  });

  json = Option.Boolean('--json', false, { description: 'Print the check as JSON' });

  protected override async run(): Promise<number> {
    const check = await (await this.auth()).audit.verify();
    if (this.json) {
      // The check is the answer a program asked for, broken or not: stdout, and the exit status says which.
      this.print(JSON.stringify(check, null, 2));
      return check.intact ? 0 : EXIT_FAILURE;
    }
    if (!check.intact) throw new CliFailure(`Broken at row #${check.brokenAt}: ${check.why}`);
    this.print(intactLine(check));
    return 0;
  }
}

function intactLine(check: ChainCheck & { intact: true }): string {
  if (check.rows === 0) return 'Intact: no rows yet';
  return `Intact: ${check.rows} ${check.rows === 1 ? 'row' : 'rows'} (#${check.first} to #${check.last})`;
}
