/**
 * Reading a request body by its schema: the typed input, or every field's problem as a 400
 * `bad_request` with `errors: [{ field, message }]`, made here and nowhere else.
 */
import type { Request } from 'express';
import type { z } from 'zod';
import { ValidationError } from '../../errors.js';

export function parseBody<S extends z.ZodType>(schema: S, req: Request): z.output<S> {
  const body: unknown = req.body;
  const parsed = schema.safeParse(body !== null && typeof body === 'object' && !Array.isArray(body) ? body : {});
  if (!parsed.success) throw ValidationError.fromIssues(parsed.error.issues);
  return parsed.data;
}
