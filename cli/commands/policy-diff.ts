import { Command, Option } from 'clipanion';
import * as t from 'typanion';
import type { PolicySet } from '../../src/authorization/analysis/diff.js';
import type { PolicyChange, PolicyDiff } from '../../src/index.js';
import { ServiceAuthCommand } from './base.js';
import { CliFailure, EXIT_FAILURE, EXIT_USAGE } from './failures.js';

export class PolicyDiffCommand extends ServiceAuthCommand {
  static override paths = [['auth', 'policy', 'diff']];

  static override usage = Command.Usage({
    category: 'Policies',
    description: 'What changes between two versions of the policies, with a witness for each change',
    details: `
      Compares OLD and NEW (each a policy file, a directory of them, or \`git:REF:PATH\`, read with \`git
      show\`) role by role, global and organization roles alike: each action and subject type (and fields, where
      rules name them) newly allowed (\`+\`) or newly denied (\`-\`), with a witness, a subject (and the user's and
      organization's values for the placeholders) that one side allows and the other denies. \`manage\` and \`all\`
      stand for every action and subject type the policies do not name; the field \`*\` for every field they do not
      name.

      Exact for conditions with \`$eq $ne $in $nin $lt $lte $gt $gte $and $or $nor $not\` on plain or dotted
      paths: "no change" means no subject is decided differently. A path through a to-many relation means "some
      element" (as CASL reads it): \`--app\` tells which relations are to-many, and each column's type (a witness
      then gives each field a value of its column's type, and a list field a list), from the application's MikroORM
      entities; without it, each step of a path is read both as one object and as an array. Rules beyond that are
      listed as not analysed. \`--app\` adds the application's roles defined in code to both sides (the files'
      roles of the same name replace them) and lists its named policies as not analysed.

      Exit status: 0 when nothing changes, 1 when something does (with \`--fail-on grants\`, only when
      something is newly allowed), 2 for a usage error or a side that cannot be read. \`--json\` prints \`{
      changes, not_analysed }\`.
    `,
    examples: [
      ['What the working copy changes since the last commit', '$0 auth policy diff git:HEAD:policies policies'],
      [
        'Fail a CI job only when a change grants more',
        '$0 auth policy diff git:origin/main:policies policies --fail-on grants',
      ],
    ],
  });

  before = Option.String({ name: 'old' });
  after = Option.String({ name: 'new' });
  json = Option.Boolean('--json', false, { description: 'Print { changes, not_analysed } as JSON' });
  failOn = Option.String('--fail-on', 'changes', {
    description: 'What makes the exit status 1: any change (changes, the default) or only newly allowed ones (grants)',
    validator: t.isEnum(['changes', 'grants']),
  });

  protected override async run(): Promise<number> {
    const diff = await this.usage(() => this.compare());
    if (this.json) this.print(JSON.stringify(diff, null, 2));
    else for (const line of report(diff)) this.print(line);
    const failing =
      this.failOn === 'grants' ? diff.changes.some((change) => change.change === 'grant') : diff.changes.length > 0;
    return failing ? EXIT_FAILURE : 0;
  }

  private async compare(): Promise<PolicyDiff> {
    const [{ diffPolicies }, { policySetOf }, { readPolicySource }, { entityRelations }, { exportsOfModule }] =
      await Promise.all([
        import('../../src/authorization/analysis/diff.js'),
        import('../../src/authorization/analysis/policy-sets.js'),
        import('./policy-sources.js'),
        import('../../src/authorization/analysis/entities.js'),
        import('./application-module.js'),
      ]);
    const parts = this.app ? await this.openParts() : undefined;
    const base: PolicySet | undefined = parts && { roles: parts.roleRules, orgRoles: parts.orgRoles };
    // Without --app, the tenant field is the environment's, as our own parts would read it.
    const tenantField = parts?.config.tenantField ?? (process.env['SERVICE_AUTH_TENANT_FIELD'] || undefined);
    const sides = await Promise.all([this.before, this.after].map(readPolicySource));
    const [was, is] = sides.map((source, index) => {
      try {
        return policySetOf(source, { tenantField, base });
      } catch (error) {
        throw new CliFailure(
          `Invalid policies in ${index === 0 ? this.before : this.after}: ${error instanceof Error ? error.message : String(error)}`,
          EXIT_USAGE,
        );
      }
    });
    // Which relations are to-many, from the application's entities; without --app, read both ways.
    const relations = this.app ? entityRelations(await exportsOfModule(this.app, process.cwd())) : undefined;
    const diff = diffPolicies(was!, is!, relations);
    for (const name of parts?.policies.names() ?? [])
      diff.not_analysed.push({
        role: null,
        org_role: null,
        action: 'satisfy',
        subject: name,
        reason: 'a named policy is code',
      });
    return diff;
  }

  /** Whatever keeps the command from comparing is a usage failure (2): 1 means "something changed". */
  private async usage<T>(work: () => Promise<T>): Promise<T> {
    try {
      return await work();
    } catch (error) {
      if (error instanceof CliFailure && error.exitCode !== EXIT_USAGE) throw new CliFailure(error.message, EXIT_USAGE);
      throw error;
    }
  }
}

/** The diff as lines for a person: each role's changes, with their witnesses, then what was not analysed. */
function report({ changes, not_analysed }: PolicyDiff): string[] {
  const lines: string[] = [];
  let heading = '';
  for (const change of changes) {
    const role = change.role !== null ? `role ${change.role}` : `org role ${change.org_role}`;
    if (role !== heading) lines.push((heading = role));
    lines.push(`  ${change.change === 'grant' ? '+' : '-'} ${change.action} ${change.subject}${fieldsOf(change)}`);
    lines.push(`      e.g. ${witnessOf(change)}`);
  }
  if (not_analysed.length) {
    lines.push('not analysed');
    for (const item of not_analysed) {
      const who =
        item.role !== null ? `role ${item.role}: ` : item.org_role !== null ? `org role ${item.org_role}: ` : '';
      lines.push(`  ${who}${item.action} ${item.subject} (${item.reason})`);
    }
  }
  const grants = changes.filter((change) => change.change === 'grant').length;
  const revokes = changes.length - grants;
  lines.push(
    changes.length === 0
      ? 'No change: every role decides every subject as before.'
      : `${plural(changes.length, 'change')}: ${plural(grants, 'grant')}, ${plural(revokes, 'revoke')}`,
  );
  return lines;
}

function fieldsOf({ fields }: PolicyChange): string {
  if (fields === null) return '';
  return `, fields ${fields.map((field) => (field === '*' ? '* (every other field)' : field)).join(', ')}`;
}

function witnessOf({ subject, witness }: PolicyChange): string {
  const parts = [`${subject} ${JSON.stringify(witness.subject)}`, `user ${JSON.stringify(witness.user)}`];
  if (witness.org) parts.push(`org ${JSON.stringify(witness.org)}`);
  return parts.join(', ');
}

function plural(count: number, noun: string): string {
  return `${count} ${noun}${count === 1 ? '' : 's'}`;
}
