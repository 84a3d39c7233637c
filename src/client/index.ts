/**
 * `service-auth/client`: the browser's side of the rules. `createClientAbility(rules)` builds a
 * CASL ability from the rules of `GET /service-auth/api/abilities` that decides exactly as the
 * server's abilities do: the same conditions matcher (authorization/matcher.ts: when a rule
 * applies, `$and`/`$or`/`$nor`/`$not`, comparisons strict by type), reading paths through plain
 * objects, and never throwing on data (a `null` inside a to-many path included).
 *
 * Browser-safe by construction: this entry imports CASL, ucast and the matcher only (no server
 * code, no Node built-in); a test bundles it with esbuild for the browser to keep it so.
 */
import { createMongoAbility, type MongoAbility, type RawRuleOf } from '@casl/ability';
import { createConditionsMatcher, plainStep, type ConditionsMatcher } from '../authorization/matcher.js';

/** A rule as `GET /api/abilities` serialises it. */
export type ClientRule = RawRuleOf<MongoAbility>;

const conditionsMatcher: ConditionsMatcher = createConditionsMatcher(plainStep);

/** The ability the server's rules make, deciding as the server does (`{ rules }` of `GET /api/abilities`). */
export function createClientAbility(rules: readonly ClientRule[]): MongoAbility {
  return createMongoAbility([...rules], { conditionsMatcher });
}

/** The same matcher, for an application that builds its own CASL ability. */
export { conditionsMatcher };
