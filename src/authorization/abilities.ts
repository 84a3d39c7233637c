/**
 * One CASL ability per principal: the rules of the user's roles, plus every named policy as a
 * rule whose subject type is the policy's name, action `satisfy`, and whose condition calls the
 * policy with the user and the subject (the route context). Abilities are cached per user and
 * rebuilt only when the user's roles or flags, or the definitions, change.
 */
import { buildMongoQueryMatcher, createMongoAbility, type MongoAbility, type MongoQuery, type RawRuleOf } from '@casl/ability';
import { $where, where } from '@ucast/mongo2js';
import { LRUCache } from 'lru-cache';
import type { PolicyContext, PolicyRegistry } from './policies.js';
import type { Principal } from './principal.js';
import type { RoleRules } from './role-rules.js';

export type AppAbility = MongoAbility;
export type AppRule = RawRuleOf<AppAbility>;

/** CASL's MongoDB-style conditions, plus `$where` for the policy functions (never from JSON). */
const conditionsMatcher = buildMongoQueryMatcher({ $where }, { where });

export const POLICY_ACTION = 'satisfy';

export class AbilityFactory {
  private readonly cache = new LRUCache<string, AppAbility>({ max: 10_000 });
  /** The same user object (cached for a while by the credential lookups) skips building the key. */
  private readonly byUser = new WeakMap<Principal, { roles: number; policies: number; ability: AppAbility }>();

  constructor(
    private readonly roles: RoleRules,
    private readonly policies: PolicyRegistry,
  ) {}

  abilityFor(user: Principal): AppAbility {
    const roles = this.roles.version;
    const policies = this.policies.version;
    const known = this.byUser.get(user);
    if (known && known.roles === roles && known.policies === policies) return known.ability;
    // Everything an ability depends on: the definitions, and who the user is and holds.
    const key = JSON.stringify([roles, policies, user.id, user.is_admin, user.email, [...user.roles].sort()]);
    let ability = this.cache.get(key);
    if (!ability) {
      ability = createMongoAbility<AppAbility>([...this.roles.rulesFor(user), ...this.policyRules(user)], { conditionsMatcher });
      this.cache.set(key, ability);
    }
    this.byUser.set(user, { roles, policies, ability });
    return ability;
  }

  /** The rules a front end can use: the roles' rules (policies are code and stay on the server). */
  serializableRules(user: Principal): AppRule[] {
    return this.roles.rulesFor(user);
  }

  /**
   * For each policy, a refusal and then the rule that calls the function. CASL lets later rules
   * win, so only the function decides: not even a role's `manage all` satisfies a policy.
   */
  private policyRules(user: Principal): AppRule[] {
    const policies = this.policies;
    return policies.names().flatMap((name): AppRule[] => [
      { action: POLICY_ACTION, subject: name, inverted: true },
      {
        action: POLICY_ACTION,
        subject: name,
        // `$where` is not in CASL's MongoQuery type; the matcher above knows it.
        conditions: {
          $where(this: PolicyContext): boolean {
            return policies.check(name, user, this);
          },
        } as MongoQuery,
      },
    ]);
  }
}
