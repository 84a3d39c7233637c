import type { Request } from 'express';
import { ValidationError } from '../errors.js';

/**
 * Reads required string fields from a JSON or form body, reporting every missing or mistyped
 * field at once as a 400 `bad_request` with `errors: [{ field, message }]`.
 */
export function stringFields<const K extends string>(req: Request, ...names: K[]): Record<K, string> {
  const body: unknown = req.body;
  const source = body !== null && typeof body === 'object' && !Array.isArray(body) ? (body as Record<string, unknown>) : {};
  const errors: { field: string; message: string }[] = [];
  const values = {} as Record<K, string>;
  for (const name of names) {
    const value = source[name];
    if (value === undefined || value === null || value === '') errors.push({ field: name, message: 'is required' });
    else if (typeof value !== 'string') errors.push({ field: name, message: 'must be a string' });
    else values[name] = value;
  }
  if (errors.length > 0) throw new ValidationError(errors);
  return values;
}
