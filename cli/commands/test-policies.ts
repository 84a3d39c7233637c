import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { Command, Option } from 'clipanion';
import type { PolicyTestReport } from '../../src/authorization/policy-tests.js';
import { ServiceAuthCommand } from './base.js';
import { failureLines } from './explanations.js';
import { CliFailure, EXIT_FAILURE, EXIT_USAGE } from './failures.js';
import { exclusive } from './option-rules.js';
import { applicationRules, DEFAULT_POLICIES, directoryRules } from './policy-rules.js';

const DEFAULT_TESTS = join(DEFAULT_POLICIES, 'tests');

export class TestPoliciesCommand extends ServiceAuthCommand {
  static override paths = [['auth', 'test-policies']];

  static override usage = Command.Usage({
    category: 'Policies',
    description: 'Run policy tests: principals, resources and the decisions they expect',
    details: `
      Runs the tests of each file (default: every \`.json\` file of \`./${DEFAULT_TESTS}\`) against the application's roles and policies (\`--app\`) or the JSON role files of \`--policies\` (default \`./${DEFAULT_POLICIES}\`), which needs no database. A file names principals (\`roles\`, \`is_admin\`, \`id\`, \`email\`), resources (\`subject\` and \`fields\`) and tests (\`principal\`, \`action\` with a \`resource\` or a \`subject\` and \`fields\`, or \`policy\` with a \`context\`, and the expected \`allowed\`).

      Each failing test is printed with the principal, the question, the expected and actual decision, and the rule that decided. The last line is \`N passed, M failed\`. Exit status: 0 when every test passes, 1 otherwise, 2 for a malformed file (naming the file and the JSON path of each problem). \`--json\` prints the reports instead.
    `,
    examples: [
      ['Run the tests in ./policies/tests against ./policies', '$0 auth test-policies'],
      ["Run one file against the application's roles and policies", '$0 auth test-policies policies/tests/demo.json --app dist/app.js'],
    ],
  });

  static override schema = [exclusive({ app: '--app', policies: '--policies' })];

  files = Option.Rest({ name: 'file' });
  policies = Option.String('--policies', { description: `The directory of JSON role files, without --app (default ./${DEFAULT_POLICIES})` });
  json = Option.Boolean('--json', false, { description: 'Print the reports as JSON' });

  protected override async run(): Promise<number> {
    const files = this.files.length ? this.files : defaultFiles();
    const rules = this.app ? applicationRules(await this.auth()) : await directoryRules(this.policies ?? DEFAULT_POLICIES, { logger: console }, this.config().tenantField);
    const { PolicyTestFileError, runPolicyTests } = await import('../../src/authorization/policy-tests.js');
    const reports: PolicyTestReport[] = [];
    for (const file of files) {
      try {
        reports.push(runPolicyTests(rules, file));
      } catch (error) {
        if (!(error instanceof PolicyTestFileError)) throw error;
        this.context.stderr.write([`Malformed policy test file ${error.file}:`, ...error.problems.map((problem) => `  ${problem}`)].join('\n') + '\n');
        return EXIT_USAGE;
      }
    }
    const passed = reports.reduce((sum, report) => sum + report.passed, 0);
    const failed = reports.reduce((sum, report) => sum + report.failed, 0);
    if (this.json) {
      this.print(JSON.stringify(reports, null, 2));
    } else {
      for (const report of reports) {
        const failures = report.results.filter((result) => !result.passed);
        if (failures.length) for (const line of [`${report.file}:`, ...failures.flatMap(failureLines)]) this.print(line);
      }
      this.print(`${passed} passed, ${failed} failed`);
    }
    return failed === 0 ? 0 : EXIT_FAILURE;
  }
}

function defaultFiles(): string[] {
  if (!existsSync(DEFAULT_TESTS)) throw new CliFailure(`No policy test files: name some, or put them in ./${DEFAULT_TESTS}`);
  const files = readdirSync(DEFAULT_TESTS).filter((file) => file.endsWith('.json')).sort().map((file) => join(DEFAULT_TESTS, file));
  if (files.length === 0) throw new CliFailure(`No policy test files in ./${DEFAULT_TESTS}`);
  return files;
}
