/**
 * Policy tests: role rules and named policies tested as data (`auth test-policies`,
 * `auth.testPolicies`). Each test names a principal and a question (an action on a resource, or
 * a policy in a context) and the decision it expects; the run answers every question with
 * `explain`, so a failure shows the rule that decided, and the report says which rules no test
 * decided (coverage.ts). A test naming an action or subject type that no rule names is a
 * malformed file: with a typo, a test expecting a denial would pass.
 */
import { readFileSync } from 'node:fs';
import { explain, type ExplainDeps, type Explanation } from './explain.js';
import { coverageOf, type Coverage } from './coverage.js';
import { unknownNameProblem } from './known-names.js';
import { readPolicyTestFile, type PolicyTestFile } from './policy-test-file.js';
import { POLICY_ACTION } from './policy-rules.js';
import { toPrincipal, type Principal } from './principal.js';

export interface PolicyTestResult {
  /** The test's position in the file's `tests`, from 0. */
  index: number;
  description?: string;
  principal: string;
  /** The principal's roles, as the file gives them. */
  roles: string[];
  /** The action, or `satisfy` for a policy test. */
  action: string;
  /** The subject type, or the policy's name. */
  subject: string;
  /** For a policy test: the policy's name. */
  policy?: string;
  /** The subject's fields, or the policy's context. */
  fields: Record<string, unknown>;
  field?: string;
  expected: boolean;
  actual: boolean;
  passed: boolean;
  explanation: Explanation;
  /** Why the question could not be asked as written (a policy that is not defined). */
  problem?: string;
}

export interface PolicyTestReport {
  /** The file the tests came from, when they came from one. */
  file?: string;
  passed: number;
  failed: number;
  results: PolicyTestResult[];
  /** The rules of every role (global and organization) that no test of this file decided. */
  coverage: Coverage;
}

/** A file that is not a policy test file: every problem, by JSON path (a TypeError: a typo is one). */
export class PolicyTestFileError extends TypeError {
  override name = 'PolicyTestFileError';

  constructor(
    readonly file: string,
    readonly problems: string[],
  ) {
    super(`${file}: ${problems.join('; ')}`);
  }
}

/** Reads and runs a file, or runs an object already in memory (`file` names it in errors). */
export function runPolicyTests(
  deps: ExplainDeps,
  input: string | object,
  file = typeof input === 'string' ? input : '(object)',
): PolicyTestReport {
  const { data, problems } = readPolicyTestFile(typeof input === 'string' ? readJson(input) : input);
  if (!data) throw new PolicyTestFileError(file, problems);
  const unknown = unknownNames(deps, data);
  if (unknown.length) throw new PolicyTestFileError(file, unknown);
  const principals = principalsOf(data);
  const results = data.tests.map((test, index) => run(deps, data, principals, test, index));
  const passed = results.filter((result) => result.passed).length;
  const coverage = coverageOf(deps.abilities.definitions(), results);
  return { ...(typeof input === 'string' && { file }), passed, failed: results.length - passed, results, coverage };
}

/** Each test asking about an action or subject type that no rule names, by JSON path. */
function unknownNames({ abilities }: ExplainDeps, file: PolicyTestFile): string[] {
  const known = abilities.knownNames();
  return file.tests.flatMap((test, index) => {
    if ('policy' in test) return [];
    const subject = test.resource === undefined ? test.subject! : file.resources[test.resource]!.subject;
    const problem = unknownNameProblem(known, test.action, subject);
    return problem ? [`$.tests[${index}]: ${problem}`] : [];
  });
}

function run(
  deps: ExplainDeps,
  file: PolicyTestFile,
  principals: Map<string, Principal>,
  test: PolicyTestFile['tests'][number],
  index: number,
): PolicyTestResult {
  const user = principals.get(test.principal)!;
  const common = {
    index,
    principal: test.principal,
    roles: [...user.roles],
    expected: test.allowed,
    ...(test.description !== undefined && { description: test.description }),
  };
  if ('policy' in test) {
    const defined = deps.policies.has(test.policy);
    const explanation = defined
      ? explain(deps, user, POLICY_ACTION, test.policy, test.context)
      : { allowed: false, rule: null, policy: test.policy };
    const problem = defined
      ? undefined
      : `no policy named ${JSON.stringify(test.policy)} is defined (policies are code: load the ` +
        `application with --app)`;
    return {
      ...common,
      action: POLICY_ACTION,
      subject: test.policy,
      policy: test.policy,
      fields: test.context,
      actual: explanation.allowed,
      passed: explanation.allowed === test.allowed && !problem,
      explanation,
      ...(problem && { problem }),
    };
  }
  const resource = test.resource === undefined ? undefined : file.resources[test.resource]!;
  const subject = resource?.subject ?? test.subject!;
  const fields = resource?.fields ?? test.fields ?? {};
  const org = file.principals[test.principal]!.org;
  const ability = org && deps.abilities.abilityFor(user, { org, roles: org.roles });
  const explanation = explain(deps, user, test.action, subject, fields, test.field, ability);
  return {
    ...common,
    action: test.action,
    subject,
    fields,
    ...(test.field !== undefined && { field: test.field }),
    actual: explanation.allowed,
    passed: explanation.allowed === test.allowed,
    explanation,
  };
}

/** A principal's id defaults to its position (1, 2, …), its email to `<name>@example.test`, its attributes to none. */
function principalsOf(file: PolicyTestFile): Map<string, Principal> {
  return new Map(
    Object.entries(file.principals).map(([name, p], position) => [
      name,
      toPrincipal({
        id: p.id ?? position + 1,
        email: p.email ?? `${name}@example.test`,
        is_admin: p.is_admin,
        roles: p.roles,
        attributes: p.attributes,
      }),
    ]),
  );
}

function readJson(path: string): unknown {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (error) {
    throw new PolicyTestFileError(path, [`cannot be read (${error instanceof Error ? error.message : String(error)})`]);
  }
  try {
    return JSON.parse(text);
  } catch (error) {
    throw new PolicyTestFileError(path, [`not valid JSON (${error instanceof Error ? error.message : String(error)})`]);
  }
}
