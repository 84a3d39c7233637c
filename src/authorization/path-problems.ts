/**
 * The dotted paths a rule's conditions follow, checked when the rule is defined: a path with an
 * empty segment names nothing, and one that follows more than MAX_RELATIONS relations (a
 * recursive hierarchy written out) would make a filter that grows with each level.
 */
import { MAX_RELATIONS } from './relation-walks.js';

const LOGICAL = new Set(['$and', '$or', '$nor']);

/**
 * What is wrong with the dotted paths of the conditions, if anything: an empty segment, or more
 * than MAX_RELATIONS relations followed (every segment but the last of a field's path, all of an
 * `$elemMatch` path, and those of the conditions inside it).
 */
export function pathProblem(conditions: object, prefix = ''): string | undefined {
  for (const [key, value] of Object.entries(conditions)) {
    const inner = LOGICAL.has(key) && Array.isArray(value) ? value : key.startsWith('$') ? [] : undefined;
    if (inner) {
      const problem = inner
        .map((child) => (child && typeof child === 'object' ? pathProblem(child as object, prefix) : undefined))
        .find(Boolean);
      if (problem) return problem;
      continue;
    }
    const path = prefix + key;
    if (key.split('.').includes('')) return `the path "${path}" has an empty segment`;
    const relations = path.split('.').length - 1;
    if (relations > MAX_RELATIONS)
      return `the path "${path}" follows ${relations} relations; at most ${MAX_RELATIONS} (recursive hierarchies are not supported)`;
    for (const match of elementMatches(value)) {
      const problem = pathProblem(match, `${path}.`);
      if (problem) return problem;
    }
  }
  return undefined;
}

/** The `$elemMatch` conditions of a field's test, under `$not` too. */
function elementMatches(test: unknown): object[] {
  if (!test || typeof test !== 'object') return [];
  const { $elemMatch, $not } = test as { $elemMatch?: unknown; $not?: unknown };
  return [...($elemMatch && typeof $elemMatch === 'object' ? [$elemMatch] : []), ...elementMatches($not)];
}
