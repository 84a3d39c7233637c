/** An `explain` answer, and a policy test's failure, in words for the terminal. */
import type { ExplainedRule, Explanation, PolicyTestResult, WhyNotRule } from '../../src/index.js';
import type { LackingAttributes } from './lacking-attributes.js';

/** The deciding rule or policy: `by role "analyst" (policies/roles.json): can read Report where {"team":"north"}`. */
export function decidedBy(explanation: Explanation, roles: Iterable<string>): string {
  if (explanation.policy !== undefined) return `by policy "${explanation.policy}"`;
  if (!explanation.rule) {
    const held = [...roles];
    return held.length
      ? `no rule of the roles ${held.join(', ')} grants it`
      : 'no rule grants it: the user has no roles';
  }
  const { role, source } = explanation.rule;
  return (
    `by ` +
    `${role === null ? 'a rule of no role' : `${explanation.rule.org_role ? 'org role' : 'role'} "${role}"`}` +
    `${source ? ` (${source})` : ''}: ${ruleText(explanation.rule)}`
  );
}

/** A rule in words: `can read Report where {"team":"north"}`. */
export function ruleText(
  rule: Pick<ExplainedRule, 'action' | 'subject' | 'inverted' | 'fields' | 'conditions' | 'reason'>,
): string {
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
        const had =
          failed.field === null
            ? 'the subject does not meet it'
            : failed.missing
              ? `the subject has no ${failed.field}`
              : `the subject's ${subjectValues(failed)}`;
        return `${where}\n    fails ${wanted}: ${had}`;
      }
      return (
        `${where}\n    matches, but ` +
        `${refused_by ? `${ruleName(refused_by)} refuses: ${ruleText(refused_by)}` : 'another rule decided'}`
      );
    }),
  ];
}

/** Where the attribute values came from, for `lackingLines`. */
export type AttributeSource = 'given' | 'resolver' | 'none';

/**
 * For a refusal, a line per rule of the user's roles left out because it names an attribute the
 * user has no value for, and how to give one: `auth check` would otherwise only say that no rule grants it.
 */
export function lackingLines(lacking: readonly LackingAttributes[], from: AttributeSource): string[] {
  if (lacking.length === 0) return [];
  const why = {
    given: 'which no --attribute gives',
    resolver: "for which the application's resolver gave the user no value",
    none: "and without --app (whose resolver gives the user's values) or --attribute the user has none",
  }[from];
  return [
    'left out, lacking user attributes:',
    ...lacking.map(({ role, org_role, index, source, rule, attributes }) => {
      const name = `${org_role ? 'org role' : 'role'} "${role}", rule ${index}${source ? ` (${source})` : ''}`;
      const where = `  ${name}: ${ruleText(rule as ExplainedRule)}`;
      const placeholders = attributes.map((name) => `\${user.${name}}`).join(', ');
      const give = attributes.map((name) => `--attribute ${name}=VALUE`).join(' ');
      return `${where}\n    names ${placeholders}, ${why}: add ${give}`;
    }),
  ];
}

/** `team is "south"`, or through a list each element's: `members[0].user_id is 5, members[1].user_id is absent`. */
function subjectValues(failed: NonNullable<WhyNotRule['failed']>): string {
  if (!failed.elements) return `${failed.field} is ${JSON.stringify(failed.actual)}`;
  return failed.elements
    .map((element) => `${element.path} is ${'value' in element ? JSON.stringify(element.value) : 'absent'}`)
    .join(', ');
}

/** `role "analyst", rule 2 (policies/roles.json)`. */
function ruleName(rule: ExplainedRule): string {
  if (rule.role === null) return 'a rule of no role';
  return (
    `${rule.org_role ? 'org role' : 'role'} "${rule.role}"` +
    `${rule.index !== undefined ? `, rule ${rule.index}` : ''}` +
    `${rule.source ? ` (${rule.source})` : ''}`
  );
}

/** Two lines for a failed policy test: what was asked and expected, and what decided (or why it could not be asked). */
export function failureLines(result: PolicyTestResult): string[] {
  const word = (allowed: boolean) => (allowed ? 'allowed' : 'denied');
  const question =
    result.policy !== undefined
      ? `policy ${result.policy} ${JSON.stringify(result.fields)}`
      : `${result.action} ${result.subject} ${JSON.stringify(result.fields)}${result.field ? ` field ${result.field}` : ''}`;
  const head = `FAIL tests[${result.index}]${result.description ? ` (${result.description})` : ''} ${result.principal}: ${question}`;
  if (result.problem) return [`${head}: ${result.problem}`];
  return [
    `${head}: expected ${word(result.expected)}, was ${word(result.actual)}`,
    `     ${decidedBy(result.explanation, result.roles)}`,
  ];
}
