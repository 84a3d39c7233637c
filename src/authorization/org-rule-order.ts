import type { AppRule } from './abilities.js';

/**
 * The roles' rules in an organization, in the order CASL decides them (a later rule wins): the
 * global rules, the organization's, then the global rules again from the first global refusal on.
 * So an organization's own refusal holds for its rows against a global grant, and a global
 * refusal holds in every organization (an org role's `manage all` does not lift it), with the
 * exceptions the global roles themselves make to it, decided as they are.
 */
export function rulesInOrgOrder(global: AppRule[], inOrg: AppRule[]): AppRule[] {
  const first = global.findIndex((rule) => rule.inverted);
  return first < 0 ? [...global, ...inOrg] : [...global, ...inOrg, ...global.slice(first)];
}
