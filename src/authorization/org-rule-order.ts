import type { AppRule } from './ability-types.js';
import { UNTENANTED } from './tenant.js';

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

/**
 * The same rules as one list for a front end (`GET /api/abilities`), which has no way to say
 * what the server's ability says by leaving the organization's rules out for a subject type
 * without the tenant field (indexed-ability.ts): a CASL rule on `all` reaches every type, and
 * `can('update', 'User')`, asked of the type, would be granted by an organization's `manage all`.
 * So, when an organization rule names `all` or such a type, those types get rules of their own
 * above the rest: an unconditional refusal, then the global rules that name them, in their order,
 * narrowed to them. For those types the global rules decide and nothing below is reached (the
 * refusal is CASL's default "no"); every other type reads the list as before.
 */
export function servedInOrgOrder(global: AppRule[], inOrg: AppRule[], untenanted = UNTENANTED): AppRule[] {
  const ordered = rulesInOrgOrder(global, inOrg);
  const reached = new Set<string>();
  for (const rule of inOrg) {
    for (const type of typesOf(rule)) if (type === 'all' || untenanted.has(type)) reached.add(type);
  }
  const types = reached.has('all') ? [...untenanted] : [...reached];
  if (types.length === 0) return ordered;
  const own = global.flatMap((rule): AppRule[] => {
    const named = typesOf(rule);
    const narrowed = named.includes('all') ? types : types.filter((type) => named.includes(type));
    return narrowed.length === 0 ? [] : [{ ...rule, subject: narrowed.length === 1 ? narrowed[0]! : narrowed }];
  });
  return [...ordered, { action: 'manage', subject: types.length === 1 ? types[0]! : types, inverted: true }, ...own];
}

function typesOf(rule: AppRule): string[] {
  return (Array.isArray(rule.subject) ? rule.subject : [rule.subject]).map(String);
}
