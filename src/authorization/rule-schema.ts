/**
 * What a role rule, a role and a file of roles must look like, as schemas: checked when a role is
 * defined in code (`auth.defineRole`) and when a file is loaded (`auth.loadPolicies`), with each
 * problem named by where it is (a rule's position, or a file's JSON path).
 */
import { z } from 'zod';
import { assertReadableConditions } from './conditions.js';
import { foreignPlaceholderProblem, PLACEHOLDER, placeholderProblem } from './placeholders.js';
import { pathProblem } from './path-problems.js';
import type { RoleRule } from './role-rules.js';
import { closest, jsonPath } from './schema-issues.js';

/**
 * The schemas every other is made of, built with the first role checked rather than with the
 * package: zod's schemas cost a few milliseconds to build, and an application may define no role.
 */
function buildParts() {
  const name = z.string({ error: 'must be a non-empty string' }).min(1, 'must be a non-empty string');
  return {
    nameOrNames: z.union([name, z.array(name).min(1)], { error: 'must be a string or a list of strings' }),
    includes: z.array(name, { error: 'must be a list of role names' }),
    attributeList: z.array(z.string().regex(/^[A-Za-z_]+$/, 'must be an attribute name (letters and _)'), {
      error: 'must be a list of attribute names',
    }),
  };
}
let built: ReturnType<typeof buildParts> | undefined;
const parts = () => (built ??= buildParts());

/**
 * A role rule's schema; `org`: an organization role's, where `${org.id}` and `${org.slug}` may
 * appear; `attributes`: the user attribute names declared so far, which `${user.*}` may name.
 */
function ruleSchemaFor(org: boolean, attributes: ReadonlySet<string> = NO_ATTRIBUTES) {
  const { nameOrNames } = parts();
  return z
    .strictObject({
      action: nameOrNames,
      subject: nameOrNames,
      conditions: z.record(z.string(), z.unknown(), { error: 'must be an object' }).optional(),
      fields: nameOrNames.optional(),
      inverted: z.boolean({ error: 'must be a boolean' }).optional(),
      reason: z.string({ error: 'must be a string' }).optional(),
    })
    .superRefine((rule, context) => {
      const foreign = foreignPlaceholderProblem(rule);
      if (foreign) context.addIssue({ code: 'custom', path: ['conditions'], message: foreign });
      for (const match of JSON.stringify(rule).matchAll(PLACEHOLDER)) {
        const problem = placeholderProblem(match[1]!, match[2]!, org, attributes);
        if (problem) context.addIssue({ code: 'custom', path: ['conditions'], message: problem });
      }
      if (!rule.conditions) return;
      if (JSON.stringify(rule.conditions).includes('"$where"')) {
        context.addIssue({
          code: 'custom',
          path: ['conditions'],
          message: '"$where" is not allowed in conditions; use definePolicy for code',
        });
        return;
      }
      try {
        assertReadableConditions(rule.conditions, 'conditions');
      } catch (error) {
        context.addIssue({
          code: 'custom',
          path: ['conditions'],
          message: error instanceof Error ? error.message.replace(/^conditions: /, '') : String(error),
        });
        return;
      }
      const problem = pathProblem(rule.conditions);
      if (problem) context.addIssue({ code: 'custom', path: ['conditions'], message: problem });
    });
}

const NO_ATTRIBUTES: ReadonlySet<string> = new Set();
type RuleSchema = ReturnType<typeof ruleSchemaFor>;

/** The schemas for these declared attribute names, built once per set of names. */
const schemas = new Map<string, { global: RuleSchema; org: RuleSchema }>();
function rulesFor(attributes: ReadonlySet<string>): { global: RuleSchema; org: RuleSchema } {
  const key = [...attributes].sort().join(' ');
  let found = schemas.get(key);
  if (!found) {
    const names = new Set(attributes);
    found = { global: ruleSchemaFor(false, names), org: ruleSchemaFor(true, names) };
    if (schemas.size > 100) schemas.clear();
    schemas.set(key, found);
  }
  return found;
}

/** A role in a file: a list of rules, or `{ "includes": [roles], "rules": [rules] }`. */
function roleSchema(rule: RuleSchema) {
  return z.union([
    z.array(rule),
    z.strictObject({ includes: parts().includes.optional(), rules: z.array(rule).default([]) }),
  ]);
}
const roleMap = (rule: RuleSchema) =>
  z.record(z.string().min(1), roleSchema(rule), { error: 'expected an object mapping role names to lists of rules' });

/** A scope in a file: `{ "description": "Read your notes", "rules": [rules] }` (scope-rules.ts checks the rest). */
const scopeSchema = (rule: RuleSchema) =>
  z.strictObject(
    {
      description: z
        .string({ error: 'must be a non-empty string (the tokens page shows it)' })
        .trim()
        .min(1, 'must be a non-empty string (the tokens page shows it)'),
      rules: z.array(rule, { error: 'must be a list of rules' }),
    },
    { error: 'must be { "description": "…", "rules": [rules] }' },
  );
const scopeMap = (rule: RuleSchema) =>
  z.record(z.string().min(1), scopeSchema(rule), {
    error: 'expected an object mapping scope names to { description, rules }',
  });

/** The sectioned form: the user attributes its rules name, global roles, organization roles, and scopes. */
const sectionedFile = (rules: { global: RuleSchema; org: RuleSchema }) =>
  z.strictObject({
    userAttributes: parts().attributeList.optional(),
    roles: roleMap(rules.global).optional(),
    orgRoles: roleMap(rules.org).optional(),
    scopes: scopeMap(rules.global).optional(),
  });
const SECTIONS = ['roles', 'orgRoles', 'scopes'];
/** The one section that holds a list: of names, where a global role in the first form holds rules. */
const ATTRIBUTES_SECTION = 'userAttributes';

type RoleMap = z.output<ReturnType<typeof roleMap>>;
export interface RoleFile {
  /** The user attribute names the file declares (`"userAttributes"`). */
  userAttributes: string[];
  roles: RoleMap;
  orgRoles: RoleMap;
  scopes: z.output<ReturnType<typeof scopeMap>>;
}

/**
 * A policy file: today's map of global roles, or an object with any of the keys `roles`,
 * `orgRoles` and `scopes`, each such a map, and `userAttributes`, the user attribute names its
 * rules may name (`${user.team}`) besides those declared already (`attributes`). It is the second
 * form when its keys are all among those and none but `userAttributes` holds a list (a global role
 * named `roles` in the first form holds one; `userAttributes` holds names, not rules). Returns the
 * roles, or every problem by JSON path: `$.reader[0].subject: must be …`.
 */
export function parseRoleFile(
  document: unknown,
  attributes: ReadonlySet<string> = NO_ATTRIBUTES,
): { file: RoleFile } | { problems: string[] } {
  if (isSectioned(document)) {
    const declared = document[ATTRIBUTES_SECTION];
    const names = Array.isArray(declared)
      ? new Set([...attributes, ...declared.filter((name): name is string => typeof name === 'string')])
      : attributes;
    const parsed = sectionedFile(rulesFor(names)).safeParse(document);
    if (!parsed.success) return { problems: roleFileProblems(parsed.error) };
    const { userAttributes = [], roles = {}, orgRoles = {}, scopes = {} } = parsed.data;
    return { file: { userAttributes, roles, orgRoles, scopes } };
  }
  const parsed = roleMap(rulesFor(attributes).global).safeParse(document);
  if (!parsed.success) return { problems: roleFileProblems(parsed.error) };
  return { file: { userAttributes: [], roles: parsed.data, orgRoles: {}, scopes: {} } };
}

/** Whether a policy file's document is of the sectioned form (`userAttributes`, `roles`, `orgRoles`, `scopes`). */
export function isSectioned(document: unknown): document is Record<string, unknown> {
  return (
    document !== null &&
    typeof document === 'object' &&
    !Array.isArray(document) &&
    Object.keys(document).length > 0 &&
    Object.entries(document).every(
      ([key, value]) =>
        (SECTIONS.includes(key) && !Array.isArray(value)) || (key === ATTRIBUTES_SECTION && isNameList(value)),
    )
  );
}

/** A list of strings (or an empty one): `userAttributes`' names, never a role's rules. */
function isNameList(value: unknown): boolean {
  return Array.isArray(value) && value.every((item) => typeof item === 'string');
}

/**
 * The rules given to `defineRole` or `defineOrgRole`, or a TypeError naming the role (`role "x"`),
 * the rule and the field; `attributes`: the user attribute names declared so far.
 */
export function checkRules(
  role: string,
  rules: unknown,
  { org = false, attributes = NO_ATTRIBUTES }: { org?: boolean; attributes?: ReadonlySet<string> } = {},
): RoleRule[] {
  const schemas = rulesFor(attributes);
  const parsed = z
    .array(org ? schemas.org : schemas.global, { error: 'rules must be an array of CASL rules' })
    .safeParse(rules);
  if (parsed.success) return rules as RoleRule[];
  const issue = closest(parsed.error.issues[0]!);
  const [index, ...path] = issue.path;
  const where =
    typeof index === 'number'
      ? `${role}, rule ${index + 1}${path.length ? `: "${path.map(String).join('.')}"` : ''}`
      : role;
  throw new TypeError(`${where}: ${issue.message}`);
}

/** The includes given to `defineRole`, or a TypeError naming the role (`role "x"`). */
export function checkIncludes(role: string, includes: unknown): string[] {
  if (includes === undefined) return [];
  const parsed = parts().includes.safeParse(includes);
  if (!parsed.success) throw new TypeError(`${role}: "includes" must be a list of role names`);
  return parsed.data;
}

function roleFileProblems(error: z.ZodError): string[] {
  return error.issues.map((issue) => closest(issue)).map(({ path, message }) => `${jsonPath(path)}: ${message}`);
}
