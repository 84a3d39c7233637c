import { Command, Option } from 'clipanion';
import type { LintFinding } from '../../src/index.js';
import { ServiceAuthCommand } from './base.js';
import { CliFailure, EXIT_FAILURE } from './failures.js';
import { DEFAULT_POLICIES } from './policy-rules.js';

export class PolicyLintCommand extends ServiceAuthCommand {
  static override paths = [['auth', 'policy', 'lint']];

  static override usage = Command.Usage({
    category: 'Policies',
    description: 'Find rules that can never decide, duplicates, and placeholders a role cannot fill',
    details: `
      Reads the policy files of PATH (a file, or every \`.json\` file of a directory; default
      \`./${DEFAULT_POLICIES}\`) and reports, for every global and organization role: rules whose conditions no
      subject meets (\`{ "n": { "$gt": 5, "$lt": 3 } }\`), rules wholly overridden by a later rule of the role for
      the same actions and subject types, duplicate rules, placeholders the role's context cannot fill
      (\`\${org.id}\` in a global role, an unknown \`\${user.x}\`), and malformed rules.

      With \`--app\`, the application's MikroORM entities (exported by the module, or decorated classes) are
      checked too: an organization role's rule on an entity without the tenant field (SERVICE_AUTH_TENANT_FIELD,
      default \`org_id\`) matches nothing, and a rule value of another type than its column (\`{ "score": "1" }\`
      on an integer column), or an order operator on a column that is not a number or a date, matches no row
      (\`column_type\`). Roles defined in code are linted by \`auth.policies.lint()\`.

      Each finding names the file, the role and the rule (its position in the role, from 1). Exit status: 0
      without findings, 1 with, 2 for a usage error. \`--json\` prints \`{ findings: [{ kind, file, role,
      org_role?, rule, message }] }\`.
    `,
    examples: [
      ['Lint ./policies', '$0 auth policy lint'],
      ["Lint one file, with the application's entities", '$0 auth policy lint policies/orgs.json --app dist/app.js'],
    ],
  });

  location = Option.String({ name: 'path', required: false });
  json = Option.Boolean('--json', false, { description: 'Print the findings as JSON' });

  protected override async run(): Promise<number> {
    const [{ readPolicyFiles, PolicyFilesError }, { lintRoles }, entities] = await Promise.all([
      import('../../src/authorization/analysis/policy-files.js'),
      import('../../src/authorization/analysis/lint.js'),
      import('../../src/authorization/analysis/entities.js'),
    ]);
    let read: ReturnType<typeof readPolicyFiles>;
    try {
      read = readPolicyFiles(this.location ?? DEFAULT_POLICIES);
    } catch (error) {
      if (error instanceof PolicyFilesError) throw new CliFailure(`Cannot lint: ${error.message}`);
      throw error;
    }
    const options = this.app ? await this.application(entities) : {};
    const findings = [...read.findings, ...lintRoles(read.roles, options)].sort(byPlace);
    if (this.json) this.print(JSON.stringify({ findings }, null, 2));
    else {
      for (const finding of findings)
        this.print(
          `${finding.file}: ${finding.org_role ? 'org role' : 'role'} "${finding.role}", rule ` +
            `${finding.rule}: ${finding.kind}: ${finding.message}`,
        );
      this.print(
        findings.length === 0 ? 'No findings.' : `${findings.length} finding${findings.length === 1 ? '' : 's'}`,
      );
    }
    return findings.length === 0 ? 0 : EXIT_FAILURE;
  }

  /** The application's tenant field, and its entities and their relations. */
  private async application({
    entityProperties,
    entityRelations,
    entityShapes,
  }: typeof import('../../src/authorization/analysis/entities.js')) {
    const parts = await this.openParts();
    const { exportsOfModule } = await import('./application-module.js');
    const exported = await exportsOfModule(this.app!, process.cwd());
    const [entities, relations, shapes] = [
      entityProperties(exported),
      entityRelations(exported),
      entityShapes(exported),
    ];
    return { tenantField: parts.orgRoles.tenant.field, entities, relations, shapes };
  }
}

/** In the order of the files, roles and rules. */
function byPlace(a: LintFinding, b: LintFinding): number {
  return (
    (a.file ?? '').localeCompare(b.file ?? '') ||
    Number(a.org_role ?? false) - Number(b.org_role ?? false) ||
    a.role.localeCompare(b.role) ||
    a.rule - b.rule
  );
}
