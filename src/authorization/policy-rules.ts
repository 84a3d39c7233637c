/**
 * Named policies as rules of an ability: each policy is a subject type of its own, asked with the
 * action `satisfy`, whose condition calls the policy's function with the user and the subject (the
 * route context). Policies are code and stay on the server: these rules are never served.
 */
import type { MongoQuery } from '@casl/ability';
import type { AppRule } from './ability-types.js';
import type { PolicyContext, PolicyRegistry } from './policies.js';
import type { Principal } from './principal.js';

export const POLICY_ACTION = 'satisfy';

/**
 * For each policy, a refusal and then the rule that calls the function. CASL lets later rules
 * win, so only the function decides: not even a role's `manage all` satisfies a policy.
 */
export function policyRules(policies: PolicyRegistry, user: Principal): AppRule[] {
  return policies.names().flatMap((name): AppRule[] => [
    { action: POLICY_ACTION, subject: name, inverted: true },
    {
      action: POLICY_ACTION,
      subject: name,
      // `$where` is not in CASL's MongoQuery type; the matcher (conditions.ts) knows it.
      conditions: {
        $where(this: PolicyContext): boolean {
          return policies.check(name, user, this);
        },
      } as MongoQuery,
    },
  ]);
}
