/**
 * Role rules from JSON files (`auth.loadPolicies`, and the CLI's `./policies`): a file maps role
 * names to a list of rules, or to `{ "includes": [roles], "rules": [rules] }`; or it has the keys
 * `roles` and `orgRoles`, each such a map (global roles, organization roles), and `scopes`, a map
 * of scope names to `{ "description": …, "rules": [rules] }` (scope-rules.ts), and
 * `userAttributes`, the names of the application's user attributes its rules name (declared as
 * `auth.defineUserAttributes(names)` would: the values come from the application's resolver). A directory is
 * every `.json` file in it, in name order. A file is checked whole by its schema first: every
 * problem named by file and JSON path.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { extname, join } from 'node:path';
import type { RoleRule, RoleRules } from './role-rules.js';
import { parseRoleFile, type RoleFile } from './rule-schema.js';
import type { ScopeRules } from './scope-rules.js';

/**
 * Loads the file or directory into `roles`, `orgRoles` and `scopes`; returns the global role
 * names defined. Without `scopes` (the CLI's policy analysis), the scopes are checked by the
 * schema and not kept.
 */
export function loadRuleFiles(roles: RoleRules, path: string, orgRoles?: RoleRules, scopes?: ScopeRules): string[] {
  const files = statSync(path).isDirectory()
    ? readdirSync(path)
        .filter((file) => extname(file) === '.json')
        .sort()
        .map((file) => join(path, file))
    : [path];
  const defined: string[] = [];
  for (const file of files) {
    let document: unknown;
    try {
      document = JSON.parse(readFileSync(file, 'utf8'));
    } catch (error) {
      throw new TypeError(`${file}: not valid JSON (${error instanceof Error ? error.message : String(error)})`);
    }
    defined.push(...loadRuleDocument(roles, document, file, orgRoles, scopes));
  }
  return defined;
}

/** Loads one policy file's parsed content (`file` names it in messages); returns the global role names defined. */
export function loadRuleDocument(
  roles: RoleRules,
  document: unknown,
  file: string,
  orgRoles?: RoleRules,
  scopes?: ScopeRules,
): string[] {
  const parsed = parseRoleFile(document, roles.attributes.names);
  if ('problems' in parsed) throw new TypeError(`${file}: ${parsed.problems.join('; ')}`);
  const { userAttributes, roles: globals, orgRoles: inOrgs, scopes: scoped } = parsed.file;
  if (Object.keys(inOrgs).length > 0 && !orgRoles)
    throw new TypeError(`${file}: organization roles ("orgRoles") cannot be loaded here`);
  // The names the file's rules may use, declared as defineUserAttributes(names) would (the resolver is code).
  for (const names of new Set([roles.attributes, orgRoles?.attributes, scopes?.attributes]))
    names?.declare(userAttributes, `${file}: "userAttributes"`);
  const defined = define(roles, globals, file);
  if (orgRoles) define(orgRoles, inOrgs, file);
  if (scopes) defineScopes(scopes, scoped, file);
  return defined;
}

function define(registry: RoleRules, roles: RoleFile['roles'], file: string): string[] {
  for (const [role, definition] of Object.entries(roles)) {
    const { rules, includes } = Array.isArray(definition) ? { rules: definition, includes: undefined } : definition;
    try {
      registry.define(role, rules as RoleRule[], { ...(includes && { includes }), source: file });
    } catch (error) {
      throw new TypeError(`${file}: ${error instanceof Error ? error.message : String(error)}`);
    }
  }
  return Object.keys(roles);
}

function defineScopes(registry: ScopeRules, scopes: RoleFile['scopes'], file: string): void {
  for (const [scope, { description, rules }] of Object.entries(scopes)) {
    try {
      registry.define(scope, rules as RoleRule[], description, file);
    } catch (error) {
      throw new TypeError(`${file}: ${error instanceof Error ? error.message : String(error)}`);
    }
  }
}
