/**
 * Who policy diff reasons about (diff.ts): a symbolic user whose fields and attributes are free
 * variables, and the witnesses it reports, the variables given the values the solver found.
 *
 * A user may lack an attribute the rules name (the resolver left it out, or gave null): then a
 * granting rule naming it is dropped and an inverted one refuses without its conditions
 * (role-compilation.ts), which can change a decision no value of the attribute changes. So diff asks
 * its questions once for each set of attributes the user may lack (`missingSets`), with a
 * symbolic user lacking exactly those: the role's compiler then makes the very rules such a user
 * gets, and a witness found that way gives those attributes no value.
 */
import type { AppRule } from '../ability-types.js';
import { conditionsMatcher } from '../conditions.js';
import type { ColumnType } from '../column-types.js';
import { isAttribute, type OrgRef } from '../placeholders.js';
import type { Principal } from '../principal.js';
import { OutsideFragment, ruleFormula, variable } from './formula.js';
import { typesFor, type EntityRelations } from './relations.js';
import { valuesOfType, variableTypes, type Solution } from './satisfy.js';

export interface Witness {
  /** The subject's fields (nested for dotted paths). */
  subject: Record<string, unknown>;
  /**
   * `attributes`: the values of the application's user attributes the rules name (`${user.team}`),
   * when they matter; one the rules name and the witness leaves out is one the user has no value for.
   */
  user: { id: number; email: string; is_admin: boolean; attributes?: Record<string, unknown> };
  /** For an organization role: the organization it is held in. */
  org?: OrgRef;
}

/** Up to this many attributes named, every set of them is asked about (2^4 = 16 sets); beyond, each alone. */
const EVERY_SET_UP_TO = 4;

/** The sets of attributes a user may lack, the empty set first, then by size. */
export function missingSets(names: readonly string[]): ReadonlySet<string>[] {
  if (names.length > EVERY_SET_UP_TO) return [new Set(), ...names.map((name) => new Set([name]))];
  const sets: string[][] = [[]];
  for (const name of names) for (const set of [...sets]) sets.push([...set, name]);
  return sets.sort((a, b) => a.length - b.length).map((set) => new Set(set));
}

/** The user diff reasons about, holding `role`, with every field and attribute a variable but those in `missing`. */
export function symbolicUser(role: string, missing: ReadonlySet<string>): Principal {
  const lacks = (name: string | symbol) => typeof name !== 'string' || missing.has(name);
  const attributes = new Proxy(
    {},
    {
      get: (_target, name) => (lacks(name) ? undefined : variable(`user.${String(name)}`)),
      has: (_target, name) => !lacks(name),
      getOwnPropertyDescriptor: (_target, name) =>
        lacks(name) ? undefined : { configurable: true, enumerable: true, value: variable(`user.${String(name)}`) },
    },
  );
  const [id, email, is_admin] = ['id', 'email', 'is_admin'].map((name) => variable(`user.${name}`));
  return { id, email, is_admin, attributes, isAdmin: false, roles: new Set([role]) } as unknown as Principal;
}

/**
 * The user attributes the rules name (as variables). A witness gives each a value, but those the
 * user is taken to lack: a user without one is another user (their granting rules naming it are
 * dropped, and their refusals naming it refuse everything), even where the deciding conditions do
 * not name it.
 */
function attributeVariables(rules: readonly object[]): string[] {
  const found = JSON.stringify(rules).matchAll(/\\u0000user\.([A-Za-z_]+)/g);
  return [...new Set([...found].map((match) => match[1]!).filter(isAttribute))];
}

/**
 * A value for each user attribute the rules name, for a witness whose question does not need it:
 * one of the type of the columns the rules compare it with, where those have one type.
 */
export function attributeDefaults(
  rules: readonly AppRule[],
  relations: EntityRelations | undefined,
): Map<string, unknown> {
  const types = new Map<string, Set<ColumnType>>();
  for (const rule of rules) {
    if (!rule.conditions) continue;
    try {
      type Ast = Parameters<typeof ruleFormula>[0];
      const { ast } = conditionsMatcher(rule.conditions as never) as unknown as { ast: Ast };
      const formula = ruleFormula(ast);
      for (const subject of [rule.subject].flat()) {
        if (typeof subject === 'string') variableTypes(formula, typesFor(relations, subject), types);
      }
    } catch (error) {
      if (!(error instanceof OutsideFragment)) throw error;
    }
  }
  const valueOf = (name: string): unknown => {
    const [type, ...others] = types.get(`user.${name}`) ?? [];
    const typed = type !== undefined && others.length === 0 ? valuesOfType(type, []) : [];
    return typed.length > 0 ? typed[0] : 'value-1';
  };
  return new Map(attributeVariables(rules).map((name) => [name, valueOf(name)]));
}

/** The witness of a solution: the subject, the user's (and organization's) values, but the `missing` attributes. */
export function witnessOf(
  { subject, values }: Solution,
  org: boolean,
  named: ReadonlyMap<string, unknown>,
  missing: ReadonlySet<string>,
): Witness {
  const value = <T>(name: string, fallback: T) => (values.has(name) ? values.get(name) : fallback) as T;
  const given = [...values]
    .filter(([name]) => name.startsWith('user.') && isAttribute(name.slice(5)))
    .map(([name, found]): [string, unknown] => [name.slice(5), found]);
  const attributes = Object.fromEntries([...named, ...given].filter(([name]) => !missing.has(name)));
  const held = Object.keys(attributes).length > 0 || named.size > 0;
  const user = {
    id: value('user.id', 1),
    email: value('user.email', 'ann@example.com'),
    is_admin: value('user.is_admin', false),
    ...(held && { attributes }),
  };
  return { subject, user, ...(org && { org: { id: value('org.id', 1), slug: value('org.slug', 'acme') } }) };
}
