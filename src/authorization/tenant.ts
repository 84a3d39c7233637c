/**
 * Tenant isolation by construction: every rule of an organization role is bound to the
 * organization it is handed out for, by a condition the package adds itself, whatever the rule
 * says. The condition names SERVICE_AUTH_TENANT_FIELD (default `org_id`), or `id` for the subject
 * type `Organization` (the organization itself). A subject without the field is matched by no
 * organization rule (matcher.ts: a rule naming a field the object lacks does not apply), so an
 * organization role cannot reach another organization's rows, nor anything outside one.
 *
 * The package's own subject types that belong to no organization (`User`, `Role`, `AuditRecord`,
 * `Policy`) have no tenant field: the field is never stamped on them (a URL's context, `auth
 * check --org`), so that in an organization they are decided by global roles alone.
 *
 * - A rule's own conditions stay: the tenant condition is added beside them, within `$and` when
 *   they name the field themselves (they could only narrow it further).
 * - Inverted rules are bound too: an organization role takes away only within its organization.
 * - `all` (as in `manage all`) becomes the organization itself and its rows: one rule for
 *   `Organization` by `id`, one for `all` by the tenant field.
 */
import type { RoleRule } from './role-rules.js';

export const ORGANIZATION = 'Organization';

/** The package's subject types that belong to no organization: no tenant field. */
export const UNTENANTED: ReadonlySet<string> = new Set(['User', 'Role', 'AuditRecord', 'Policy']);

export class Tenant {
  constructor(readonly field = 'org_id') {}

  /** The field that says which organization a subject of this type belongs to. */
  fieldOf(subjectType: string): string {
    return subjectType === ORGANIZATION ? 'id' : this.field;
  }

  /** Whether subjects of this type belong to an organization (carry the tenant field, or are one). */
  hasField(subjectType: string): boolean {
    return !UNTENANTED.has(subjectType);
  }

  /** What a subject of this type known to be in the organization carries: the tenant condition, or nothing for a type without the field. */
  stamp(subjectType: string, orgId: number): Record<string, number> {
    return this.hasField(subjectType) ? this.condition(subjectType, orgId) : {};
  }

  /** The condition "belongs to the organization" for a subject type. */
  condition(subjectType: string, orgId: number): Record<string, number> {
    return { [this.fieldOf(subjectType)]: orgId };
  }

  /** The rule, bound to the organization: one rule, or two when it names `Organization` with other types or `all`. */
  bind(rule: RoleRule, orgId: number): RoleRule[] {
    const subjects = (Array.isArray(rule.subject) ? rule.subject : [rule.subject]) as string[];
    const others = subjects.filter((type) => type !== ORGANIZATION);
    const bound: RoleRule[] = [];
    if (subjects.includes(ORGANIZATION) || subjects.includes('all'))
      bound.push(this.within(rule, ORGANIZATION, 'id', orgId));
    if (others.length > 0) bound.push(this.within(rule, others.length === 1 ? others[0]! : others, this.field, orgId));
    return bound;
  }

  private within(rule: RoleRule, subject: string | string[], field: string, orgId: number): RoleRule {
    const own = rule.conditions as Record<string, unknown> | undefined;
    const conditions = !own
      ? { [field]: orgId }
      : Object.hasOwn(own, field)
        ? { $and: [own, { [field]: orgId }] }
        : { ...own, [field]: orgId };
    return { ...rule, subject, conditions } as RoleRule;
  }
}
