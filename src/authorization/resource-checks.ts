/**
 * The checks of `require({ action, subject, load?, fields? })`: the ability on the route's URL
 * context, or on the resource `load` found, and on each field the request's body sets, decided
 * as decision.ts says.
 *
 * With `load`, a user whose ability allows `action` on no `subject` at all is refused before
 * anything is loaded; a resource that is not there is a 404; one the ability refuses, by its own
 * fields, a 403, or with `conceal` the very 404 of a missing one. A refusal says the deciding
 * rule's `reason` if it gives one, and nothing of roles.
 *
 * After `orgRequired`, they decide with the ability in that organization, and the URL context
 * belongs to it (it carries the tenant field: `org_id`, or `id` for an `Organization`; none for a
 * type without one, such as `User`, tenant.ts); with
 * `fields: 'body'`, a body whose tenant field names another organization is refused.
 */
import { subject as asSubject } from '@casl/ability';
import type { Request } from 'express';
import { AuthError } from '../errors.js';
import type { AppAbility, AppActions, AppSubjectTypes } from './ability-types.js';
import { routeContext, type RouteContext } from './context.js';
import { decide } from './decision.js';
import { populateRuleRelations } from './relation-walks.js';
import { orgOfRequest } from './request-state.js';
import type { Tenant } from './tenant.js';

export interface ResourceOptions<T = unknown> {
  action: AppActions;
  /** The CASL subject type, e.g. `'Note'`. */
  subject: AppSubjectTypes;
  /** Finds the resource the request is about (an entity or a plain object), or null. */
  load?: (req: Request) => T | null | undefined | PromiseLike<T | null | undefined>;
  /** `'body'`: every top-level key of the parsed body must be a field the user may `action`. */
  fields?: 'body';
  /**
   * With `load`: a resource the user may not `action` answers exactly as a missing one (404), so
   * that ids cannot be probed. An action (`'read'`) conceals it only from a user who may not do
   * that either: one who may read it is told 403.
   */
  conceal?: boolean | AppActions;
}

type Refusal = AuthError | undefined;

export function resourceCheck(options: ResourceOptions, tenant: Tenant): (req: Request) => Refusal | Promise<Refusal> {
  const { action, subject, load, fields, conceal } = options;
  // `req.ability`: the user's, in the organization if any, within a token's scopes (request-state.ts).
  const abilityOf = (req: Request): AppAbility => req.ability!;
  // The URL context is an object of its own, made on every request: its class says its subject
  // type (CASL reads a constructor's `modelName`), which costs less than `subject()` tagging it.
  const UrlContext = class {
    static readonly modelName = subject;
  };
  const contextOf = (req: Request): object => {
    const context = routeContext(req.params, new UrlContext() as RouteContext);
    const place = orgOfRequest(req);
    // Never on a subject type without the field (`User`): an organization role must not reach it.
    if (place && tenant.hasField(subject)) context[tenant.fieldOf(subject)] = place.org.id;
    return context;
  };
  const decide = (req: Request, ability: AppAbility, target: object): Refusal => {
    const refusal = refusalOf(ability, action, target, subject);
    if (refusal && conceals(ability, conceal, target)) return notFound(subject);
    if (refusal || fields !== 'body') return refusal;
    return (
      (tenant.hasField(subject) ? misplaced(req, tenant.fieldOf(subject)) : undefined) ??
      refusedFields(ability, action, target, req.body)
    );
  };
  if (!load) return (req) => decide(req, abilityOf(req), contextOf(req));
  return (req) => {
    const ability = abilityOf(req);
    if (!ability.can(action, subject))
      return forbidden(ability.relevantRuleFor(action, subject)?.reason ?? `You may not ${action} any ${subject}`);
    return (async () => {
      const resource: unknown = await load(req);
      if (resource === null || resource === undefined) return notFound(subject);
      if (typeof resource !== 'object')
        throw new TypeError(`require({ subject: '${subject}', load }): load(req) must resolve to an object or null`);
      // On a MikroORM entity, the relations the rules follow (`project.members.user_id`) are loaded first.
      await populateRuleRelations(ability, action, subject, resource);
      // `conceal: 'read'` asks about reading it too, whose rules may follow other relations.
      if (typeof conceal === 'string' && conceal !== action)
        await populateRuleRelations(ability, conceal, subject, resource);
      const refusal = decide(req, ability, asSubject(subject, resource));
      if (!refusal) req.resource = resource;
      return refusal;
    })();
  };
}

/** Why the ability refuses `action` on the object (the deciding rule's reason, if it gives one), or nothing. */
function refusalOf(ability: AppAbility, action: string, target: object, subject: string): Refusal {
  const { allowed, rule } = decide(ability, action, target);
  return allowed ? undefined : forbidden(rule?.reason ?? `You may not ${action} this ${subject}`);
}

/**
 * In an organization, a 403 if the body's tenant field names another one: the rules are checked on
 * the resource as it is, and would let a row be moved (or made) into an organization the caller
 * may know nothing of.
 */
function misplaced(req: Request, field: string): Refusal {
  const place = orgOfRequest(req);
  const body: unknown = req.body;
  if (!place || body === null || typeof body !== 'object' || !Object.hasOwn(body, field)) return undefined;
  const value: unknown = (body as Record<string, unknown>)[field];
  if (value === place.org.id || value === String(place.org.id)) return undefined;
  return new AuthError('forbidden', `You may not ${field === 'id' ? 'name' : 'move this into'} another organization`, [
    { field, message: 'names another organization than the one of the request' },
  ]);
}

/** A 403 naming every body field the user may not `action`, or nothing. */
function refusedFields(ability: AppAbility, action: string, target: object, body: unknown): Refusal {
  if (body === null || typeof body !== 'object' || Array.isArray(body)) return undefined;
  const refused = Object.keys(body).filter((field) => !ability.can(action, target, field));
  if (refused.length === 0) return undefined;
  return new AuthError(
    'forbidden',
    `You may not ${action} ${refused.join(', ')}`,
    refused.map((field) => ({ field, message: `you may not ${action} this field` })),
  );
}

function forbidden(detail: string): AuthError {
  return new AuthError('forbidden', detail);
}

/** Whether `conceal` hides a refused resource from this user: always, or when they may not do its action either. */
function conceals(ability: AppAbility, conceal: ResourceOptions['conceal'], target: object): boolean {
  return conceal === true || (typeof conceal === 'string' && !decide(ability, conceal, target).allowed);
}

/** What a missing resource answers, and a concealed one: nothing tells them apart. */
function notFound(subject: string): AuthError {
  return new AuthError('not_found', `No such ${subject}`);
}
