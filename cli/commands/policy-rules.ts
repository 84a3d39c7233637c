/**
 * Where `auth check` and `auth test-policies` find the rules: the application's (`--app`, its
 * roles, organization roles and named policies) or the JSON role files of a directory
 * (`--policies`, default `./policies`: global and organization roles), which need no database. The
 * authorization modules (CASL, the rule schema) are
 * imported when a command asks for rules, not with the command classes.
 */
import { existsSync, statSync } from 'node:fs';
import { resolve } from 'node:path';
import type { ExplainDeps } from '../../src/authorization/explain.js';
import type { LoggerHolder } from '../../src/logger.js';
import type { AuthParts } from '../../src/wiring.js';
import { CliFailure } from './failures.js';

export const DEFAULT_POLICIES = 'policies';

/** The application's rules and policies. */
export function applicationRules(parts: AuthParts): ExplainDeps {
  return { abilities: parts.abilities, roles: parts.roleRules, policies: parts.policies };
}

/** The role rules of a directory's JSON files (no named policies: those are code). */
export async function directoryRules(directory: string, log: LoggerHolder, tenantField?: string): Promise<ExplainDeps> {
  const path = resolve(directory);
  if (!existsSync(path) || !statSync(path).isDirectory())
    throw new CliFailure(`No policies directory ${path}: give one with --policies, or the application with --app`);
  const { rulesFromFiles } = await import('../../src/authorization/rules-from-files.js');
  try {
    return rulesFromFiles(path, log, tenantField);
  } catch (error) {
    throw new CliFailure(`Invalid role rules: ${error instanceof Error ? error.message : String(error)}`);
  }
}

/**
 * Our own parts (no `--app`) know the roles of `./policies`, when there is such a directory: the
 * organization roles a membership may be given (`add-member`) are those defined there, and the
 * scopes a token may be made with (`create-token`).
 */
export async function loadDefaultPolicies(parts: AuthParts): Promise<void> {
  const path = resolve(DEFAULT_POLICIES);
  if (!existsSync(path) || !statSync(path).isDirectory()) return;
  const { loadRuleFiles } = await import('../../src/authorization/rule-files.js');
  try {
    loadRuleFiles(parts.roleRules, path, parts.orgRoles, parts.scopes);
  } catch (error) {
    throw new CliFailure(`Invalid role rules: ${error instanceof Error ? error.message : String(error)}`);
  }
}
