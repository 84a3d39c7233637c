/**
 * The policy test format, as a schema: a file (or object) of named principals, named resources and
 * tests that each expect a decision. Written once with zod, which both checks a file (every problem
 * named by its JSON path) and types what the runner reads.
 */
import { z } from 'zod';
import { closest, jsonPath } from './schema-issues.js';

/** The schema, built with the first file read rather than with the package (testPolicies is for a test run). */
function buildSchema() {
  const name = z.string().min(1);
  const fields = z.record(z.string(), z.unknown());

  const principal = z.strictObject({
    roles: z.array(name).default([]),
    is_admin: z.boolean().default(false),
    /** Defaults to the principal's position in the file: 1, 2, … */
    id: z.number().int().optional(),
    /** Defaults to `<name>@example.test`. */
    email: z.string().min(1).optional(),
    /** The values of the application's user attributes (`${user.team}`); none by default, so rules naming them deny. */
    attributes: z
      .record(
        z.string(),
        z.union([z.string(), z.number(), z.boolean(), z.null()], {
          error: 'must be a string, a number, a boolean or null',
        }),
      )
      .default({}),
    /** A member of this organization, with these organization roles: the tests ask in it. */
    org: z.strictObject({ id: z.number().int(), slug: name, roles: z.array(name).default([]) }).optional(),
  });

  const resource = z.strictObject({ subject: name, fields: fields.default({}) });

  const decisionTest = z.strictObject({
    principal: name,
    action: name,
    /** A named resource, or a subject with its fields given here. */
    resource: name.optional(),
    subject: name.optional(),
    fields: fields.optional(),
    /** Ask about one field (`ability.can(action, subject, field)`). */
    field: name.optional(),
    allowed: z.boolean(),
    description: z.string().optional(),
  });

  const policyTest = z.strictObject({
    principal: name,
    policy: name,
    context: fields.default({}),
    allowed: z.boolean(),
    description: z.string().optional(),
  });

  return z.strictObject({
    principals: z.record(name, principal),
    resources: z.record(name, resource).default({}),
    tests: z.array(z.union([policyTest, decisionTest])).min(1),
  });
}

let schema: ReturnType<typeof buildSchema> | undefined;
const policyTestFile = () => (schema ??= buildSchema());

/**
 * A file's data, or every problem it has: those of its shape, and the tests' references to
 * principals and resources the file does not name (checked on the raw file too, so that a file
 * with both kinds of problem is told all of them at once).
 */
export function readPolicyTestFile(
  raw: unknown,
): { data: PolicyTestFile; problems: [] } | { data: undefined; problems: string[] } {
  const parsed = policyTestFile().safeParse(raw);
  const problems = [...(parsed.success ? [] : describeIssues(parsed.error)), ...referenceProblems(raw)];
  return parsed.success && problems.length === 0 ? { data: parsed.data, problems: [] } : { data: undefined, problems };
}

function referenceProblems(raw: unknown): string[] {
  const file = (raw ?? {}) as { principals?: unknown; resources?: unknown; tests?: unknown };
  if (!Array.isArray(file.tests)) return [];
  const named = (group: unknown) =>
    group !== null && typeof group === 'object' ? new Set(Object.keys(group)) : new Set<string>();
  const principals = named(file.principals);
  const resources = named(file.resources);
  return file.tests.flatMap((test: unknown, index) => {
    if (test === null || typeof test !== 'object') return [];
    const { principal, resource, subject, fields, policy } = test as Record<string, unknown>;
    const problems: string[] = [];
    const at = (key: string) => `${jsonPath(['tests', index, key])}`;
    if (typeof principal === 'string' && !principals.has(principal))
      problems.push(`${at('principal')}: no principal named ${JSON.stringify(principal)}`);
    if (policy !== undefined) return problems;
    if ((resource === undefined) === (subject === undefined))
      problems.push(`${at('resource')}: name a "resource", or give a "subject" (and its "fields"), not both`);
    else if (typeof resource === 'string' && !resources.has(resource))
      problems.push(`${at('resource')}: no resource named ${JSON.stringify(resource)}`);
    else if (resource !== undefined && fields !== undefined)
      problems.push(`${at('fields')}: a named resource has its fields already`);
    return problems;
  });
}

export type PolicyTestFile = z.infer<ReturnType<typeof buildSchema>>;
export type PolicyTestInput = z.input<ReturnType<typeof buildSchema>>;

/** Each problem of a file that is not a policy test file, as `$.tests[2].allowed: …`. */
export function describeIssues(error: z.ZodError): string[] {
  return error.issues.map((issue) => closest(issue)).map(({ path, message }) => `${jsonPath(path)}: ${message}`);
}
