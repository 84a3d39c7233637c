/**
 * Enforcement where the data is, in ServiceAuth's public API: `auth.enforce(orm)`
 * registers the application's MikroORM; then `req.em` behind any guard, `auth.em(req)`, and
 * `auth.em(user, { org?, scopes? })` in service code, are EntityManagers bound to that ability
 * (src/enforcement/), for who asks as authorization/asking.ts resolves it. One of the parts
 * ServiceAuth is made of (service-auth.ts).
 */
import type { EntityManager, MikroORM } from '@mikro-orm/core';
import type { Request } from 'express';
import type { AppAbility } from './authorization/ability-types.js';
import type { Asked, Asker, InOrg } from './authorization/asker.js';
import { askerOf } from './authorization/asking.js';
import { isGuardedRequest, setRequestEm } from './authorization/request-state.js';
import type { WithScopes } from './authorization/scope-rules.js';
import { Enforcement, type EnforceOptions } from './enforcement/enforcement.js';
import { applyPolicies, enableRowLevelSecurity, tenantPolicies } from './storage/row-level-security.js';
import type { AuthParts } from './wiring.js';

export class EnforcementApi {
  readonly #parts: Pick<AuthParts, 'abilities' | 'orgRoles' | 'asking' | 'config'>;
  #enforcement: Enforcement | undefined;
  /** Each request's EntityManager, made on first use, for the ability it was made for. */
  readonly #requestEms = new WeakMap<Request, { ability: AppAbility; em: EntityManager }>();

  constructor(parts: Pick<AuthParts, 'abilities' | 'orgRoles' | 'asking' | 'config'>) {
    this.#parts = parts;
  }

  /**
   * Registers the application's MikroORM: from now on `req.em` (behind any guard) reads only the
   * rows the request's ability may read and writes only what it may write; entities no rule names
   * are neither read nor written, unless listed in `public`. Call it once, when the ORM is open.
   * With SERVICE_AUTH_TENANT_RLS on, await it: it rejects when the role the ORM connects as would
   * bypass the tenant policies (docs/row-level-security.md), and req.em's queries wait for it.
   */
  enforce(orm: MikroORM, options: EnforceOptions = {}): Promise<void> {
    const { abilities, orgRoles, config } = this.#parts;
    if (this.#enforcement) {
      throw new TypeError('auth.enforce(orm): the ORM is registered already; call it once, when the ORM is open');
    }
    const enforcement = new Enforcement(orm, options, { abilities, tenant: orgRoles.tenant });
    // With SERVICE_AUTH_TENANT_RLS, the role is checked (asynchronously) before req.em's first query runs.
    const checked = config.tenantRls ? enableRowLevelSecurity(orm, config.tenantField) : Promise.resolve();
    this.#enforcement = enforcement;
    setRequestEm(abilities, (req) => this.em(req));
    return checked;
  }

  /**
   * The SQL that gives each tenant table of `orm` (its entities with SERVICE_AUTH_TENANT_FIELD) the
   * row-level security policy of SERVICE_AUTH_TENANT_RLS: for a migration (`this.addSql(…)` each).
   * Idempotent. `auth rls apply` runs the same statements.
   */
  tenantPolicies(orm: MikroORM): string[] {
    return tenantPolicies(orm, this.#parts.config.tenantField);
  }

  /**
   * Runs those statements through `orm` in one transaction (idempotent) and returns them. `orm`
   * must connect as the tables' owner (a migration's role), not as the role req.em's ORM uses.
   */
  applyTenantPolicies(orm: MikroORM): Promise<string[]> {
    return applyPolicies(orm, this.#parts.config.tenantField);
  }

  /**
   * An EntityManager bound to a request's ability (the same as `req.em`), or to a user's, in an
   * organization (then a promise) and within scopes if given.
   */
  em(who: Request): EntityManager;
  em(who: Asker, options?: WithScopes): EntityManager;
  em(who: Asker, options: InOrg & WithScopes): Promise<EntityManager>;
  em(asked: Asker, options: Partial<InOrg> & WithScopes = {}): EntityManager | Promise<EntityManager> {
    const enforcement = this.#enforcement;
    if (!enforcement) throw new TypeError('auth.em(…): register your MikroORM first, with auth.enforce(orm)');
    // `req.user` stands for its request (request-state.ts): the same EntityManager as `req.em`.
    const who = askerOf(asked);
    const resolved = this.#parts.asking.resolve(who, options);
    const bound = ({ ability, org }: Asked): EntityManager => enforcement.em({ ability, org });
    if (resolved instanceof Promise) return resolved.then(bound);
    if (!isGuardedRequest(who) || options.scopes) return bound(resolved);
    // `req.em` is made once per request, unless its ability changed (a later guard put it in an organization).
    const held = this.#requestEms.get(who);
    if (held?.ability === resolved.ability) return held.em;
    const em = bound(resolved);
    this.#requestEms.set(who, { ability: resolved.ability, em });
    return em;
  }
}
