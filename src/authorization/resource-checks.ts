/**
 * The checks of `require({ action, subject, load?, fields? })`: the ability on the route's URL
 * context, or on the resource `load` found, and on each field the request's body sets, decided
 * as decision.ts says.
 *
 * With `load`, a user whose ability allows `action` on no `subject` at all is refused before
 * anything is loaded; a resource that is not there is a 404; one the ability refuses, by its own
 * fields, a 403. A refusal says the deciding rule's `reason` if it gives one, and nothing of roles.
 */
import { subject as asSubject } from '@casl/ability';
import type { Request } from 'express';
import { AuthError } from '../errors.js';
import type { AbilityFactory, AppAbility, AppActions, AppSubjectTypes } from './abilities.js';
import { routeContext } from './context.js';
import { decide } from './decision.js';
import type { Principal } from './principal.js';
import { populateRuleRelations } from './relation-paths.js';

export interface ResourceOptions {
  action: AppActions;
  /** The CASL subject type, e.g. `'Note'`. */
  subject: AppSubjectTypes;
  /** Finds the resource the request is about (an entity or a plain object), or null. */
  load?: (req: Request) => unknown;
  /** `'body'`: every top-level key of the parsed body must be a field the user may `action`. */
  fields?: 'body';
}

type Refusal = AuthError | undefined;

export function resourceCheck(abilities: AbilityFactory, options: ResourceOptions): (req: Request, user: Principal) => Refusal | Promise<Refusal> {
  const { action, subject, load, fields } = options;
  const decide = (req: Request, ability: AppAbility, object: object): Refusal => {
    const target = asSubject(subject, object);
    const refusal = refusalOf(ability, action, target, subject);
    if (refusal || fields !== 'body') return refusal;
    return refusedFields(ability, action, target, req.body);
  };
  if (!load) return (req, user) => decide(req, abilities.abilityFor(user), routeContext(req.params));
  return (req, user) => {
    const ability = abilities.abilityFor(user);
    if (!ability.can(action, subject)) return forbidden(ability.relevantRuleFor(action, subject)?.reason ?? `You may not ${action} any ${subject}`);
    return (async () => {
      const resource: unknown = await load(req);
      if (resource === null || resource === undefined) return new AuthError('not_found', `No such ${subject}`);
      if (typeof resource !== 'object') throw new TypeError(`require({ subject: '${subject}', load }): load(req) must resolve to an object or null`);
      // On a MikroORM entity, the relations the rules follow (`project.members.user_id`) are loaded first.
      await populateRuleRelations(ability, action, subject, resource);
      const refusal = decide(req, ability, resource);
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
