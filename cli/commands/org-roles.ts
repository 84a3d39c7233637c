/**
 * Organization roles given on the command line (`--role`), as `add-member` and `set-member-roles`
 * give them: a role no definition names is refused by `auth.orgs` (422 `unknown_role`); here the
 * refusal also names the defined organization roles and the nearest one, as the other commands do
 * for a typo (`--role viewr`: did you mean "viewer"?).
 */
import { AuthError } from '../../src/errors.js';
import type { AuthParts } from '../../src/wiring.js';
import { CliFailure } from './failures.js';

/** What `work` returns, or its `unknown_role` refusal in the operator's terms. */
export async function withOrgRoles<T>(parts: AuthParts, roles: readonly string[], work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (error) {
    if (!(error instanceof AuthError && error.code === 'unknown_role')) throw error;
    throw new CliFailure(await unknownRoles(parts, roles));
  }
}

async function unknownRoles(parts: AuthParts, roles: readonly string[]): Promise<string> {
  const unknown = [...new Set(roles)].filter((role) => !parts.knownOrgRole(role));
  const defined = parts.orgRoles.names();
  const named = unknown.map((role) => JSON.stringify(role)).join(', ');
  if (defined.length === 0) {
    const where = 'auth.defineOrgRole in the application, with --app, or orgRoles in a policy file of ./policies';
    return `Unknown role: no organization role named ${named}; none is defined (${where})`;
  }
  const { closest } = await import('fastest-levenshtein');
  const guesses = unknown.map((role) => JSON.stringify(closest(role, defined))).join(', ');
  return `Unknown role: no organization role named ${named}; did you mean ${guesses}? (the organization roles are ${defined.join(', ')})`;
}
