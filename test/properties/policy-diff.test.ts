/**
 * `auth policy diff`, proven by property (CONTRACT-3 §22): for generated pairs of policy files
 * (global and organization roles, includes, inverted rules, fields, `manage` and `all`,
 * placeholders, every operator of the exact fragment on plain and dotted paths, paths through
 * to-many relations) and generated subjects and users (arrays of no, one or several elements
 * where a path is to-many):
 *
 * - whenever the diff reports no change for a (role, action, subject type), CASL's `can` decides
 *   every generated subject alike on both sides, for every field;
 * - every witness is decided differently by `can` on both sides, in the direction reported.
 *
 * Twice: without the entities' relations (every step may be an object or an array, and the
 * subjects have either), and with them (`m` and `p.n` to-many, `p` to-one: the subjects are what
 * an entity would be). With the columns' types too: policy-diff-typed.test.ts. The generators
 * and the check: policy-diff-pairs.ts.
 *
 * 100 runs of each by default (a few seconds; 18 s on a loaded machine); POLICY_DIFF_RUNS=2000 searches longer.
 */
import fc from 'fast-check';
import { anySubject, check, entitySubject, FOUND, pairOf, RELATIONS, RUNS } from './policy-diff-pairs.js';

describe('policy diff, by property', () => {
  it('reports every difference that can shows on generated subjects, and each witness differs', () => {
    for (const found of FOUND) check(found);
    fc.assert(
      fc.property(pairOf(anySubject), (pair) => check(pair)),
      { numRuns: RUNS },
    );
  });

  it('and so with the relations known: to-many paths on arrays of no, one or several elements', () => {
    for (const found of FOUND) check(found, RELATIONS);
    fc.assert(
      fc.property(pairOf(entitySubject), (pair) => check(pair, RELATIONS)),
      { numRuns: RUNS },
    );
  });
});
