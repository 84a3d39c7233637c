/** An `explain` answer, and a policy test's failure, in words for the terminal. */
import type { ExplainedRule, Explanation } from '../../src/authorization/explain.js';
import type { PolicyTestResult } from '../../src/authorization/policy-tests.js';

/** The deciding rule or policy: `by role "analyst" (policies/roles.json): can read Report where {"team":"north"}`. */
export function decidedBy(explanation: Explanation, roles: Iterable<string>): string {
  if (explanation.policy !== undefined) return `by policy "${explanation.policy}"`;
  if (!explanation.rule) {
    const held = [...roles];
    return held.length ? `no rule of the roles ${held.join(', ')} grants it` : 'no rule grants it: the user has no roles';
  }
  const { role, source } = explanation.rule;
  return `by ${role === null ? 'a rule of no role' : `${explanation.rule.org_role ? 'org role' : 'role'} "${role}"`}${source ? ` (${source})` : ''}: ${ruleText(explanation.rule)}`;
}

/** A rule in words: `can read Report where {"team":"north"}`. */
export function ruleText(rule: Pick<ExplainedRule, 'action' | 'subject' | 'inverted' | 'fields' | 'conditions' | 'reason'>): string {
  const list = (value: string | string[]) => (Array.isArray(value) ? value.join(', ') : value);
  return [
    rule.inverted ? 'cannot' : 'can',
    list(rule.action),
    list(rule.subject),
    rule.fields ? `(fields ${list(rule.fields)})` : '',
    rule.conditions ? `where ${JSON.stringify(rule.conditions)}` : '',
    rule.reason ? `(reason: ${JSON.stringify(rule.reason)})` : '',
  ]
    .filter(Boolean)
    .join(' ');
}

/**
 * For a refusal by the rules, a line per rule that could have allowed it: `  role "analyst",
 * rule 2: team $eq "north", but the subject's team is "south"`, or the inverted rule that refused.
 */
export function whyNotLines(explanation: Explanation): string[] {
  const entries = explanation.why_not ?? [];
  if (entries.length === 0) return [];
  return [
    'why not:',
    ...entries.map(({ rule, failed, refused_by }) => {
      const where = `  ${ruleName(rule)}: ${ruleText(rule)}`;
      if (failed) {
        const wanted = `${failed.field === null ? '' : `${failed.field} `}${failed.operator} ${JSON.stringify(failed.expected)}`;
        const had = failed.field === null ? 'the subject does not meet it' : failed.missing ? `the subject has no ${failed.field}` : `the subject's ${failed.field} is ${JSON.stringify(failed.actual)}`;
        return `${where}\n    fails ${wanted}: ${had}`;
      }
      return `${where}\n    matches, but ${refused_by ? `${ruleName(refused_by)} refuses: ${ruleText(refused_by)}` : 'another rule decided'}`;
    }),
  ];
}

/** `role "analyst", rule 2 (policies/roles.json)`. */
function ruleName(rule: ExplainedRule): string {
  if (rule.role === null) return 'a rule of no role';
  return `${rule.org_role ? 'org role' : 'role'} "${rule.role}"${rule.index !== undefined ? `, rule ${rule.index}` : ''}${rule.source ? ` (${rule.source})` : ''}`;
}

/** Two lines for a failed policy test: what was asked and expected, and what decided (or why it could not be asked). */
export function failureLines(result: PolicyTestResult): string[] {
  const word = (allowed: boolean) => (allowed ? 'allowed' : 'denied');
  const question = result.policy !== undefined
    ? `policy ${result.policy} ${JSON.stringify(result.fields)}`
    : `${result.action} ${result.subject} ${JSON.stringify(result.fields)}${result.field ? ` field ${result.field}` : ''}`;
  const head = `FAIL tests[${result.index}]${result.description ? ` (${result.description})` : ''} ${result.principal}: ${question}`;
  if (result.problem) return [`${head}: ${result.problem}`];
  return [`${head}: expected ${word(result.expected)}, was ${word(result.actual)}`, `     ${decidedBy(result.explanation, result.roles)}`];
}
