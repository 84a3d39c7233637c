import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { Command, Option } from 'clipanion';
import * as t from 'typanion';
import type { Coverage, PolicyTestReport } from '../../src/index.js';
import { ServiceAuthCommand } from './base.js';
import { failureLines, ruleText } from './explanations.js';
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
      Runs the tests of each file (default: every \`.json\` file of \`./${DEFAULT_TESTS}\`) against the
      application's roles and policies (\`--app\`) or the JSON role files of \`--policies\` (default
      \`./${DEFAULT_POLICIES}\`), which needs no database. A file names principals (\`roles\`, \`is_admin\`,
      \`id\`, \`email\`), resources (\`subject\` and \`fields\`) and tests (\`principal\`, \`action\` with a
      \`resource\` or a \`subject\` and \`fields\`, or \`policy\` with a \`context\`, and the expected
      \`allowed\`).

      Each failing test is printed with the principal, the question, the expected and actual decision, and the
      rule that decided. The last line is \`N passed, M failed\`. A test naming an action or subject type that no
      rule of any role names is a malformed file (with a typo, a test expecting a denial would pass): the problem
      names the closest known name.

      \`--coverage\` then reports, per role (global and organization), the rules that no test decided (the
      rule \`explain\` names, allowing or denying), and the share of all rules decided by some test;
      \`--min-coverage N\` (a percentage, implying \`--coverage\`) fails below N.

      Exit status: 0 when every test passes (and the coverage is at least \`--min-coverage\`), 1 otherwise, 2
      for a malformed file (naming the file and the JSON path of each problem). \`--json\` prints the reports
      instead (with \`--coverage\`: \`{ reports, coverage }\`).
    `,
    examples: [
      ['Run the tests in ./policies/tests against ./policies', '$0 auth test-policies'],
      [
        "Run one file against the application's roles and policies",
        '$0 auth test-policies policies/tests/demo.json --app dist/app.js',
      ],
      ['Fail unless every rule is decided by some test', '$0 auth test-policies --coverage --min-coverage 100'],
    ],
  });

  static override schema = [exclusive({ app: '--app', policies: '--policies' })];

  files = Option.Rest({ name: 'file' });
  policies = Option.String('--policies', {
    description: `The directory of JSON role files, without --app (default ./${DEFAULT_POLICIES})`,
  });
  json = Option.Boolean('--json', false, { description: 'Print the reports as JSON' });
  coverage = Option.Boolean('--coverage', false, {
    description: 'Report the rules no test decided, per role, and the total as a percentage',
  });
  minCoverage = Option.String('--min-coverage', {
    description: 'Fail when fewer than this percentage of the rules are decided by a test (implies --coverage)',
    validator: t.cascade(t.isNumber(), [t.isInInclusiveRange(0, 100)]),
  });

  protected override async run(): Promise<number> {
    const files = this.files.length ? this.files : defaultFiles();
    const rules = this.app
      ? applicationRules(await this.auth())
      : await directoryRules(this.policies ?? DEFAULT_POLICIES, { logger: console }, this.config().tenantField);
    const [{ PolicyTestFileError, runPolicyTests }, { coverageOf }] = await Promise.all([
      import('../../src/authorization/policy-tests.js'),
      import('../../src/authorization/coverage.js'),
    ]);
    const reports: PolicyTestReport[] = [];
    for (const file of files) {
      try {
        reports.push(runPolicyTests(rules, file));
      } catch (error) {
        if (!(error instanceof PolicyTestFileError)) throw error;
        this.context.stderr.write(
          [`Malformed policy test file ${error.file}:`, ...error.problems.map((problem) => `  ${problem}`)].join('\n') +
            '\n',
        );
        return EXIT_USAGE;
      }
    }
    const passed = reports.reduce((sum, report) => sum + report.passed, 0);
    const failed = reports.reduce((sum, report) => sum + report.failed, 0);
    const withCoverage = this.coverage || this.minCoverage !== undefined;
    // Over every file run: a rule decided by a test of any of them is covered.
    const coverage = coverageOf(
      rules.abilities.definitions(),
      reports.flatMap((report) => report.results),
    );
    const enough = this.minCoverage === undefined || shownPercent(coverage) >= this.minCoverage;
    if (this.json) {
      this.print(JSON.stringify(withCoverage ? { reports, coverage } : reports, null, 2));
    } else {
      for (const report of reports) {
        const failures = report.results.filter((result) => !result.passed);
        if (failures.length)
          for (const line of [`${report.file}:`, ...failures.flatMap(failureLines)]) this.print(line);
      }
      if (withCoverage) for (const line of coverageLines(coverage)) this.print(line);
      this.print(`${passed} passed, ${failed} failed`);
    }
    if (!enough)
      this.context.stderr.write(`Coverage ${percent(coverage)} is below --min-coverage ${this.minCoverage}%\n`);
    return failed === 0 && enough ? 0 : EXIT_FAILURE;
  }
}

/** Per role, how many of its rules tests decide, and each rule none decides; then the total. */
function coverageLines(coverage: Coverage): string[] {
  return [
    ...coverage.roles.flatMap(({ role, org_role, source, rules, covered, uncovered }) => [
      `${org_role ? 'org role' : 'role'} "${role}"${source ? ` (${source})` : ''}: ${covered} of ${rules} rules decided by a test`,
      ...uncovered.map(
        ({ index, rule }) =>
          `  rule ${index}, decided by no test: ` +
          `${ruleText({ ...rule, inverted: rule.inverted === true } as Parameters<typeof ruleText>[0])}`,
      ),
    ]),
    `Coverage: ${percent(coverage)} (${coverage.covered} of ${coverage.total} rules)`,
  ];
}

/** `30.8%` for 4 of 13 rules: to the nearest tenth, but never 100% while a rule is uncovered, nor 0% once one is covered. */
export function percent({ covered, total }: Pick<Coverage, 'covered' | 'total'>): string {
  return `${shownPercent({ covered, total })}%`;
}

/** The percentage as `percent` shows it, which is what `--min-coverage` is compared with. */
function shownPercent({ covered, total }: Pick<Coverage, 'covered' | 'total'>): number {
  if (total === 0 || covered === total) return 100;
  const rounded = Math.round((covered / total) * 1000) / 10;
  return Math.min(Math.max(rounded, covered > 0 ? 0.1 : 0), 99.9);
}

function defaultFiles(): string[] {
  if (!existsSync(DEFAULT_TESTS))
    throw new CliFailure(`No policy test files: name some, or put them in ./${DEFAULT_TESTS}`);
  const files = readdirSync(DEFAULT_TESTS)
    .filter((file) => file.endsWith('.json'))
    .sort()
    .map((file) => join(DEFAULT_TESTS, file));
  if (files.length === 0) throw new CliFailure(`No policy test files in ./${DEFAULT_TESTS}`);
  return files;
}
