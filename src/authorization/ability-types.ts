/**
 * The one ability type the package hands out (`AppAbility`) and the rule type it is built from,
 * kept at the edge so that CASL's type machinery lives in one place. An application that registers
 * its actions and subject types (`AbilityTypes`) gets them checked wherever an ability is asked.
 */
import type { ForcedSubject, MongoAbility, RawRuleOf } from '@casl/ability';

/**
 * An application that wants its abilities typed names its actions and subject types here, by
 * declaration merging; `req.ability`, `auth.abilityFor` and the guards' `action` and `subject`
 * are then checked against them (`req.ability.can('raed', 'Nte')` does not compile):
 *
 *     declare module 'service-auth' {
 *       interface AbilityTypes { actions: 'read' | 'update'; subjects: 'Report' | 'Note' }
 *     }
 *
 * Without it, every string is an action and a subject type, as CASL's default ability has it.
 */
export interface AbilityTypes {}

/** A CASL ability over these actions and subject types (`manage` and `all` included), for tagged objects too. */
export type TypedAbility<A extends string, S extends string> = MongoAbility<
  [A | 'manage', S | 'all' | ForcedSubject<S>]
>;

/** The application's registered actions (`AbilityTypes`), or any string. */
export type AppActions = AbilityTypes extends { actions: infer A extends string } ? A : string;
/** The application's registered subject types (`AbilityTypes`), or any string. */
export type AppSubjectTypes = AbilityTypes extends { subjects: infer S extends string } ? S : string;

/** The ability of `req.ability` and `auth.abilityFor`: typed when the application registered its types. */
export type AppAbility = AbilityTypes extends { actions: infer A extends string; subjects: infer S extends string }
  ? TypedAbility<A, S>
  : MongoAbility;
export type AppRule = RawRuleOf<MongoAbility>;
