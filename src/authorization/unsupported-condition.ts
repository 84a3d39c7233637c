/**
 * The error of a condition with no faithful SQL form (an operator, a path, a value, a named
 * policy): condition-query.ts throws it, and accessibleBy (filters.ts) turns it into a TypeError
 * naming the role and the rule, so that a filter never means something other than the ability.
 */
export class UnsupportedCondition extends Error {}
