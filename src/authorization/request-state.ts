/**
 * How the guards hand what they found to the rest of the request: `req.user`, `req.authMethod`,
 * `req.token` and `req.ability` (typed in express-request.ts).
 *
 * Express gives every request its prototype anew (Object.setPrototypeOf), after which each
 * property added to the request is slow; on a guarded route four of them cost a few percent of
 * the whole request. So a guard adds one property, a symbol, and the four names are accessors on
 * the request's prototype that read it. `req.ability` is built only when something asks for it.
 * Assigning any of them (as another library might `req.user = …`) stores a plain own property.
 */
import type { Request } from 'express';
import type { AbilityFactory, AppAbility } from './abilities.js';
import type { Credentials } from '../authentication/credentials.js';

const STATE = Symbol.for('service-auth.request-state');
const INSTALLED = Symbol.for('service-auth.request-accessors');

interface RequestState {
  credentials: Credentials;
  abilities: AbilityFactory;
  ability: AppAbility | undefined;
}

type StatefulRequest = Request & { [STATE]?: RequestState; [INSTALLED]?: true };

export function attachCredentials(req: Request, credentials: Credentials, abilities: AbilityFactory): void {
  const stateful = req as StatefulRequest;
  if (stateful[INSTALLED] !== true) installAccessors(Object.getPrototypeOf(req) as object);
  stateful[STATE] = { credentials, abilities, ability: undefined };
}

const READERS = {
  user: (state: RequestState) => state.credentials.user,
  authMethod: (state: RequestState) => state.credentials.method,
  token: (state: RequestState) => state.credentials.token,
  ability: (state: RequestState) => (state.ability ??= state.abilities.abilityFor(state.credentials.user)),
};

function installAccessors(prototype: object): void {
  for (const [name, read] of Object.entries(READERS)) {
    Object.defineProperty(prototype, name, {
      configurable: true,
      get(this: StatefulRequest) {
        const state = this[STATE];
        return state ? read(state) : undefined;
      },
      set(this: Request, value: unknown) {
        Object.defineProperty(this, name, { value, writable: true, configurable: true, enumerable: true });
      },
    });
  }
  Object.defineProperty(prototype, INSTALLED, { value: true });
}
