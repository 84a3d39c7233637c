/**
 * The roles of policy files as `auth policy lint` reads them: rule by rule, so that a rule the
 * definition would refuse (a placeholder its role cannot fill, a malformed rule) is a finding
 * naming the file, the role and the rule, and the other rules are still linted.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { extname, join } from 'node:path';
import { PLACEHOLDER, placeholderProblem } from '../placeholders.js';
import type { RoleRule } from '../role-rules.js';
import { checkRules, isSectioned } from '../rule-schema.js';
import type { LintFinding, LintRole } from './lint.js';

/** A file or directory that cannot be read as policy files at all. */
export class PolicyFilesError extends Error {
  override name = 'PolicyFilesError';
}

/** The roles of a policy file, or of every `.json` file of a directory (in name order), and the rules already found wrong. */
export function readPolicyFiles(path: string): { roles: LintRole[]; findings: LintFinding[] } {
  let files: string[];
  try {
    files = statSync(path).isDirectory()
      ? readdirSync(path)
          .filter((file) => extname(file) === '.json')
          .sort()
          .map((file) => join(path, file))
      : [path];
  } catch (error) {
    throw new PolicyFilesError(`${path}: cannot be read (${error instanceof Error ? error.message : String(error)})`);
  }
  const roles: LintRole[] = [];
  const findings: LintFinding[] = [];
  const attributes = new Set<string>();
  const read: { file: string; role: string; definition: unknown; org: boolean }[] = [];
  for (const file of files) {
    const document = readJson(file);
    const sections = isSectioned(document)
      ? { roles: document['roles'], orgRoles: document['orgRoles'] }
      : { roles: document, orgRoles: undefined };
    // The user attributes a file declares (`"userAttributes"`) may be named by the rules of every file read.
    if (isSectioned(document) && Array.isArray(document['userAttributes']))
      for (const name of document['userAttributes']) if (typeof name === 'string') attributes.add(name);
    for (const [section, org] of [
      [sections.roles, false],
      [sections.orgRoles, true],
    ] as const) {
      if (section === undefined) continue;
      if (section === null || typeof section !== 'object' || Array.isArray(section))
        throw new PolicyFilesError(`${file}: expected an object mapping role names to lists of rules`);
      for (const [role, definition] of Object.entries(section)) read.push({ file, role, definition, org });
    }
  }
  for (const { file, role, definition, org } of read)
    roles.push(readRole(file, role, definition, org, findings, attributes));
  return { roles, findings };
}

function readRole(
  file: string,
  role: string,
  definition: unknown,
  org: boolean,
  findings: LintFinding[],
  attributes: ReadonlySet<string>,
): LintRole {
  const form = Array.isArray(definition)
    ? { rules: definition, includes: [] }
    : ((definition ?? {}) as { rules?: unknown; includes?: unknown });
  const rules = Array.isArray(form.rules) ? (form.rules as unknown[]) : [];
  const includes = Array.isArray(form.includes)
    ? form.includes.filter((name): name is string => typeof name === 'string')
    : [];
  const found = (index: number, kind: LintFinding['kind'], message: string) =>
    findings.push({ kind, file, role, ...(org && { org_role: true as const }), rule: index + 1, message });
  const checked = rules.map((rule, index): RoleRule | null => {
    const problems = [...JSON.stringify(rule ?? null).matchAll(PLACEHOLDER)].flatMap(
      (match) => placeholderProblem(match[1]!, match[2]!, org, attributes) ?? [],
    );
    for (const problem of new Set(problems))
      found(index, 'placeholder', `its role's context cannot fill it: ${problem}`);
    if (problems.length) return null;
    try {
      checkRules('', [rule], { org, attributes });
      return rule as RoleRule;
    } catch (error) {
      found(index, 'invalid', (error instanceof Error ? error.message : String(error)).replace(/^, rule 1: /, ''));
      return null;
    }
  });
  return { role, org, includes, rules: checked, source: file };
}

function readJson(file: string): unknown {
  try {
    return JSON.parse(readFileSync(file, 'utf8'));
  } catch (error) {
    throw new PolicyFilesError(`${file}: not valid JSON (${error instanceof Error ? error.message : String(error)})`);
  }
}
