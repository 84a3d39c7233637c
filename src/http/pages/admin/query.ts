/**
 * What the console's addresses and forms may carry, as schemas: a page number, a search, the
 * audit log's filters, the "why" form, a role. Anything else is a 400 `bad_request` naming the
 * field, shown as a page (never a 500, never a silently ignored filter).
 */
import type { Request } from 'express';
import { z } from 'zod';
import { AUDIT_TYPES } from '../../../audit/records.js';
import { ValidationError } from '../../../errors.js';

/** A form leaves a field empty rather than out: empty is absent. */
const optionalText = <S extends z.ZodType>(schema: S) =>
  z.preprocess((value) => (value === '' ? undefined : value), schema.optional());

const text = (max: number) => z.string({ error: 'must be text' }).max(max, `must be at most ${max} characters`);

const pageNumber = z.preprocess(
  (value) => (value === undefined || value === '' ? '1' : value),
  z
    .string({ error: 'must be a page number' })
    .regex(/^[1-9]\d{0,5}$/, 'must be a page number from 1')
    .transform(Number),
);

const DAY = /^\d{4}-\d{2}-\d{2}$/;
/** A day (`2026-11-23`, UTC) as the time it starts. */
const day = text(10)
  .regex(DAY, 'must be a date, YYYY-MM-DD')
  .transform((value) => new Date(`${value}T00:00:00.000Z`))
  .refine((date) => !Number.isNaN(date.getTime()), 'must be a real date');

export const userListQuery = z.object({ page: pageNumber, email: optionalText(text(254)) });

export const orgListQuery = z.object({ page: pageNumber });

export const auditQuery = z
  .object({
    type: optionalText(z.enum(AUDIT_TYPES, { error: 'must be one of the audit log’s types' })),
    email: optionalText(text(254)),
    since: optionalText(day),
    until: optionalText(day),
    before: optionalText(
      z
        .string()
        .regex(/^[1-9]\d{0,14}$/, 'must be a record id')
        .transform(Number),
    ),
  })
  .refine(({ since, until }) => !since || !until || since <= until, {
    path: ['until'],
    message: 'must not be before the start',
  });

export const whyQuery = z.object({
  email: optionalText(text(254)),
  action: optionalText(text(100)),
  subject: optionalText(text(100)),
  org: optionalText(text(100)),
  fields: optionalText(text(4000)),
});

const ROLE_NAME = /^[A-Za-z0-9_.:-]{1,64}$/;
export const roleForm = z.object({ roles: z.string({ error: 'is required' }).regex(ROLE_NAME, 'must be a role name') });

/** The typed query, or a 400 naming each field that is wrong. */
export function parseQuery<S extends z.ZodType>(schema: S, req: Request): z.output<S> {
  const parsed = schema.safeParse(req.query);
  if (!parsed.success) throw ValidationError.fromIssues(parsed.error.issues);
  return parsed.data;
}

/**
 * The field values of the "why" form, as `auth check --field` takes them: `name=text` is text,
 * `name:=JSON` is a typed value (a number, a boolean, null, a list). A line that is neither is a 400.
 */
export function parseFieldValues(lines: string | undefined): Record<string, unknown> {
  const values: Record<string, unknown> = {};
  for (const line of (lines ?? '').split(/\r?\n/)) {
    if (line.trim() === '') continue;
    const typed = /^\s*([A-Za-z_$][\w.$]*)\s*:=(.*)$/.exec(line);
    const plain = typed ? null : /^\s*([A-Za-z_$][\w.$]*)\s*=(.*)$/.exec(line);
    if (typed) {
      try {
        values[typed[1]!] = JSON.parse(typed[2]!);
      } catch {
        throw new ValidationError([{ field: 'fields', message: `${typed[1]}: what follows := is not JSON` }]);
      }
    } else if (plain) values[plain[1]!] = plain[2]!;
    else throw new ValidationError([{ field: 'fields', message: 'each line is name=text or name:=JSON' }]);
  }
  return values;
}
