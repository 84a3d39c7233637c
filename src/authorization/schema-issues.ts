/** Schema problems told by where they are: the nearest branch of a union, and JSON paths. */
import type { z } from 'zod';

/**
 * The issue to report for a union: the first of the nearest branch, the one the value is of the
 * kind of (an object for the object form) with the fewest problems.
 */
export function closest(
  issue: z.core.$ZodIssue,
  base: readonly PropertyKey[] = [],
): { path: PropertyKey[]; message: string } {
  const path = [...base, ...issue.path];
  // A union of our own has its own message; the others ("Invalid input") are told by the nearest branch.
  if (issue.code === 'invalid_union' && issue.errors.length > 0 && issue.message === 'Invalid input') {
    const distance = (branch: readonly z.core.$ZodIssue[]) =>
      (branch.some((inner) => inner.code === 'invalid_type' && inner.path.length === 0) ? 1000 : 0) + branch.length;
    const branch = issue.errors.reduce((best, candidate) => (distance(candidate) < distance(best) ? candidate : best));
    if (branch[0]) return closest(branch[0], path);
  }
  return { path, message: issue.message };
}

/** `$.tests[2].allowed`, `$["a role"].rules[0]`. */
export function jsonPath(path: readonly PropertyKey[]): string {
  return path.reduce<string>(
    (at, key) =>
      typeof key === 'number'
        ? `${at}[${key}]`
        : /^[A-Za-z_$][\w$]*$/.test(String(key))
          ? `${at}.${String(key)}`
          : `${at}[${JSON.stringify(String(key))}]`,
    '$',
  );
}
