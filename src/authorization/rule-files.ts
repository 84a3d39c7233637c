/**
 * Role rules from JSON files (`auth.loadPolicies`): a file maps role names to a list of rules, or
 * to `{ "includes": [roles], "rules": [rules] }`; a directory is every `.json` file in it, in name
 * order. A file is checked whole by its schema first: every problem named by file and JSON path.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { extname, join } from 'node:path';
import type { RoleRule, RoleRules } from './role-rules.js';
import { roleFileProblems, roleFileSchema } from './rule-schema.js';

/** Loads the file or directory into `roles`; returns the role names defined. */
export function loadRuleFiles(roles: RoleRules, path: string): string[] {
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
    const parsed = roleFileSchema.safeParse(document);
    if (!parsed.success) throw new TypeError(`${file}: ${roleFileProblems(parsed.error).join('; ')}`);
    for (const [role, definition] of Object.entries(parsed.data)) {
      const { rules, includes } = Array.isArray(definition) ? { rules: definition, includes: undefined } : definition;
      try {
        roles.define(role, rules as RoleRule[], { ...(includes && { includes }), source: file });
      } catch (error) {
        throw new TypeError(`${file}: ${error instanceof Error ? error.message : String(error)}`);
      }
      defined.push(role);
    }
  }
  return defined;
}
