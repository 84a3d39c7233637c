/**
 * `auth policy diff` and `auth.policies.diff(a, b)`: what changes between two sets of roles, per
 * global and organization role, per action and subject type, and per field where rules name
 * fields. Each change comes with a witness, a subject (and the user's and organization's values
 * for the placeholders) that one side allows and the other refuses, checked with CASL's `can`.
 *
 * A role's rules are the package's own, as an ability would hold them (included roles first,
 * organization roles bound by the tenant condition), interpolated with variables for the
 * placeholders. CASL picks the rules for each question (`manage` and `all` included, fields as it
 * matches them); formula.ts turns them into what they allow, satisfy.ts decides the difference.
 * The actions and subject types asked about are those the rules name, and `manage` and `all`,
 * which stand for every other one (CASL applies exactly the `manage` and `all` rules to those).
 * A user may lack an attribute the rules name, which changes the rules they get: each question is
 * asked again for each set of attributes the user may lack (witnesses.ts).
 */
import { createMongoAbility, subject as asSubject } from '@casl/ability';
import type { AppAbility, AppRule } from '../ability-types.js';
import { conditionsMatcher } from '../conditions.js';
import type { OrgRef } from '../placeholders.js';
import { toPrincipal, type Principal } from '../principal.js';
import type { RoleRules } from '../role-rules.js';
import type { OrgRoleRules } from '../org-role-rules.js';
import { allowedBy, and, not, OutsideFragment, variable, type RuleLike } from './formula.js';
import { kindsFor, typesFor, type EntityRelations, type KindOf, type TypeOf } from './relations.js';
import { satisfy, type Solution } from './satisfy.js';
import { attributeDefaults, missingSets, symbolicUser, witnessOf, type Witness } from './witnesses.js';

export type { Witness };

/** One side of a diff: global roles and organization roles. */
export interface PolicySet {
  roles: RoleRules;
  orgRoles: OrgRoleRules;
}

export interface PolicyChange {
  /** The global role, or null for an organization role. */
  role: string | null;
  org_role: string | null;
  /** `manage`: every action the policies do not name; `all`: every subject type they do not name. */
  action: string;
  subject: string;
  /** null: the subject as such (`can(action, subject)`); else these fields, `*` for every field no rule names. */
  fields: string[] | null;
  change: 'grant' | 'revoke';
  witness: Witness;
}

export interface NotAnalysed {
  role: string | null;
  org_role: string | null;
  action: string;
  subject: string;
  reason: string;
}

export interface PolicyDiff {
  changes: PolicyChange[];
  not_analysed: NotAnalysed[];
}

type Kind = 'role' | 'org_role';
const OTHER_FIELD = '*';
const SYMBOLIC_ORG = { id: variable('org.id'), slug: variable('org.slug') } as unknown as OrgRef;

/**
 * `relations`: the application's entities' relations (entities.ts), which say which steps of a
 * dotted path are to-many; a step they do not know is read both ways (relations.ts).
 */
export function diffPolicies(before: PolicySet, after: PolicySet, relations?: EntityRelations): PolicyDiff {
  const result: PolicyDiff = { changes: [], not_analysed: [] };
  const names = (kind: Kind) =>
    [...new Set([...registry(before, kind).names(), ...registry(after, kind).names()])].sort();
  for (const kind of ['role', 'org_role'] as const)
    for (const role of names(kind)) diffRole(before, after, kind, role, result, relations);
  return result;
}

function registry(set: PolicySet, kind: Kind): RoleRules {
  return kind === 'role' ? set.roles : set.orgRoles;
}

/** The role's rules as an ability holds them: for this user (and organization). */
function rulesOf(set: PolicySet, kind: Kind, role: string, user: Principal, org: OrgRef): AppRule[] {
  return kind === 'role'
    ? set.roles.rulesFor({ ...user, roles: new Set([role]) })
    : set.orgRoles.rulesIn(user, org, [role]);
}

function abilityOf(rules: AppRule[]): AppAbility {
  return createMongoAbility<AppAbility>(rules, { conditionsMatcher });
}

function diffRole(
  before: PolicySet,
  after: PolicySet,
  kind: Kind,
  role: string,
  result: PolicyDiff,
  relations: EntityRelations | undefined,
): void {
  const abilitiesOf = (missing: ReadonlySet<string>) =>
    [before, after].map((set) => {
      return abilityOf(rulesOf(set, kind, role, symbolicUser(role, missing), SYMBOLIC_ORG));
    }) as [AppAbility, AppAbility];
  const full = abilitiesOf(new Set());
  const rules = full.flatMap((ability) => ability.rules);
  const named = attributeDefaults(rules, relations);
  const actions = namesIn(rules, 'action', 'manage');
  const subjects = namesIn(rules, 'subject', 'all');
  const who = { role: kind === 'role' ? role : null, org_role: kind === 'org_role' ? role : null };
  // A change found for a user holding every attribute is not reported again for one lacking some.
  const reported = new Set<string>();
  const once = (key: unknown[]) => !reported.has(JSON.stringify(key)) && !!reported.add(JSON.stringify(key));
  for (const missing of missingSets([...named.keys()])) {
    const abilities = missing.size === 0 ? full : abilitiesOf(missing);
    for (const action of actions) {
      for (const subject of subjects) {
        const possible = abilities.map((ability) => ability.possibleRulesFor(action, subject));
        // The same rules decide alike: nothing to analyse (even rules the analysis could not read).
        const [was, is] = possible.map((rules) => JSON.stringify(rules.map((rule) => rule.origin)));
        if (was === is) continue;
        try {
          const shape = { kindOf: kindsFor(relations, subject), typeOf: typesFor(relations, subject) };
          for (const { fields, change, solution, field } of diffQuestion(abilities, possible, action, subject, shape)) {
            if (!once([action, subject, fields, change])) continue;
            const witness = witnessOf(solution, kind === 'org_role', named, missing);
            const decided = [before, after].map((set) => decides(set, kind, role, witness, { action, subject, field }));
            if (decided[0] === decided[1] || decided[1] !== (change === 'grant')) {
              const said = `the witness ${JSON.stringify(witness)} for ${action} ${subject}`;
              throw new Error(`policy diff: ${said} is decided alike on both sides`);
            }
            result.changes.push({ ...who, action, subject, fields, change, witness });
          }
        } catch (error) {
          if (!(error instanceof OutsideFragment)) throw error;
          if (!once([action, subject, 'not analysed'])) continue;
          result.not_analysed.push({ ...who, action, subject, reason: error.message });
        }
      }
    }
  }
}

/** The action or subject names of the rules, sorted, with the one standing for all others. */
function namesIn(
  rules: readonly { action: unknown; subject?: unknown }[],
  key: 'action' | 'subject',
  other: string,
): string[] {
  const names = new Set<string>([other]);
  for (const rule of rules) for (const name of [rule[key]].flat()) if (typeof name === 'string') names.add(name);
  return [...names].sort();
}

interface Found {
  fields: string[] | null;
  field: string | undefined;
  change: 'grant' | 'revoke';
  solution: Solution;
}

type FieldRule = RuleLike & { fields?: string[] | undefined };

/**
 * The changes for one action and subject type: asked without a field, and, where rules name
 * fields, for each field (fields with the same rules on both sides asked once, together).
 */
function diffQuestion(
  abilities: [AppAbility, AppAbility],
  possible: readonly (readonly FieldRule[])[],
  action: string,
  subject: string,
  { kindOf, typeOf }: { kindOf: KindOf; typeOf: TypeOf },
): Found[] {
  const named = [...new Set(possible.flat().flatMap((rule) => rule.fields ?? []))].sort();
  if (named.some((field) => field.includes('*'))) throw new OutsideFragment('a field pattern with *');
  const other = freshField(named);
  const groups = new Map<string, { fields: string[]; field: string | undefined }>();
  const signatureOf = (field: string | undefined) =>
    abilities
      .map((ability, side) =>
        ability
          .rulesFor(action, subject, field)
          .map((rule) => possible[side]!.indexOf(rule as FieldRule))
          .join(','),
      )
      .join('|');
  const whole = signatureOf(undefined);
  for (const field of named.length ? [...named, other] : []) {
    const signature = signatureOf(field);
    if (signature === whole) continue;
    const group = groups.get(signature) ?? groups.set(signature, { fields: [], field }).get(signature)!;
    group.fields.push(field === other ? OTHER_FIELD : field);
  }
  const found: Found[] = [];
  for (const { fields, field } of [{ fields: null, field: undefined }, ...groups.values()]) {
    const [was, is] = abilities.map((ability) =>
      allowedBy(ability.rulesFor(action, subject, field) as readonly RuleLike[]),
    );
    const grant = satisfy(and([is!, not(was!)]), kindOf, typeOf);
    const revoke = satisfy(and([was!, not(is!)]), kindOf, typeOf);
    if (grant) found.push({ fields, field, change: 'grant', solution: grant });
    if (revoke) found.push({ fields, field, change: 'revoke', solution: revoke });
  }
  return found;
}

/** A field name no rule names. */
function freshField(named: string[]): string {
  let name = 'other_field';
  while (named.includes(name)) name += '_';
  return name;
}

/** CASL's answer for the witness on one side, the placeholders filled with the witness's values. */
function decides(
  set: PolicySet,
  kind: Kind,
  role: string,
  witness: Witness,
  question: { action: string; subject: string; field: string | undefined },
): boolean {
  // Attributes the witness does not name (the question's rules name none) have no value: rules naming them deny.
  const user = toPrincipal({ ...witness.user, attributes: witness.user.attributes ?? {}, roles: [role] });
  const ability = abilityOf(rulesOf(set, kind, role, user, witness.org ?? { id: 1, slug: 'acme' }));
  return ability.can(question.action, asSubject(question.subject, structuredClone(witness.subject)), question.field);
}
