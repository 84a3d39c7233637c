/**
 * Typos are errors: the actions and subject types that the rules of some role (global or
 * organization) name, and the named policies (subject: the policy, action `satisfy`). A question
 * about a name none of them uses can only ever be denied, so a misspelt name would pass a test
 * that expects a denial: `accessibleBy`, `explain`, `permittedFields`, policy tests and `auth
 * check` refuse it instead, naming the closest known name. `manage` and `all` are CASL's own and
 * may always be asked about. A rule on `manage` makes CASL's usual actions known too (`create`,
 * `read`, `update`, `delete`: an admin's `manage all` grants them without naming them), but no
 * other name: otherwise every misspelt action would pass. `all` makes no subject type known.
 * Computed when asked, so roles defined later count.
 */
import { closest } from 'fastest-levenshtein';
import type { RoleDefinition } from './role-rules.js';

export interface KnownNames {
  actions: ReadonlySet<string>;
  subjects: ReadonlySet<string>;
}

const CASL_ACTION = 'manage';
const CASL_SUBJECT = 'all';
/** The actions CASL's documentation manages with: known wherever a rule names `manage`. */
const CRUD = ['create', 'read', 'update', 'delete'];

/** The names the roles' rules and the policies use. */
export function knownNames(
  definitions: Iterable<RoleDefinition>,
  policies: Iterable<string>,
  policyAction: string,
): KnownNames {
  const actions = new Set<string>();
  const subjects = new Set<string>();
  const add = (into: Set<string>, value: unknown) => {
    for (const name of Array.isArray(value) ? value : [value]) if (typeof name === 'string') into.add(name);
  };
  for (const { rules } of definitions) {
    for (const rule of rules) {
      add(actions, rule.action);
      add(subjects, rule.subject);
    }
  }
  if (actions.has(CASL_ACTION)) for (const action of CRUD) actions.add(action);
  for (const policy of policies) {
    subjects.add(policy);
    actions.add(policyAction);
  }
  return { actions, subjects };
}

/** What is wrong with asking about this action and subject type, or nothing. */
export function unknownNameProblem(known: KnownNames, action: string, subjectType: string): string | undefined {
  if (action !== CASL_ACTION && !known.actions.has(action)) return unknown('action', action, known.actions);
  if (subjectType !== CASL_SUBJECT && !known.subjects.has(subjectType))
    return unknown('subject type', subjectType, known.subjects);
  return undefined;
}

function unknown(what: string, name: string, names: ReadonlySet<string>): string {
  const candidates = [...names].filter((known) => known !== CASL_ACTION && known !== CASL_SUBJECT);
  const near = candidates.length ? `; did you mean ${JSON.stringify(closest(name, candidates))}?` : '';
  return `no rule of any role names the ${what} ${JSON.stringify(name)}${near}`;
}
