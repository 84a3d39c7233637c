/**
 * Where a ServiceAuth and its parts are found: the application a ServiceAuth is mounted on keeps
 * it, and a map keeps each one's parts. Both sit under registered symbols, so that a second copy of
 * the package in the process (the CLI from dist/ loading an application built on src/, say) finds
 * what the application's copy made.
 */
import type { ServiceAuth } from './service-auth.js';
import type { AuthParts } from './wiring.js';

/** Where an application keeps its ServiceAuth. */
const INSTANCE = Symbol.for('service-auth.instance');

/** The parts of each ServiceAuth, by instance, shared by every copy of the package in the process. */
const PARTS_OF: WeakMap<object, AuthParts> = ((globalThis as Record<symbol, WeakMap<object, AuthParts>>)[
  Symbol.for('service-auth.parts')
] ??= new WeakMap());

/** The parts behind a ServiceAuth: for the CLI and the package's own tests, not the public API. */
export function partsOf(auth: ServiceAuth): AuthParts {
  const parts = PARTS_OF.get(auth);
  if (!parts) throw new TypeError('partsOf(auth): not a ServiceAuth');
  return parts;
}

/** Records the parts of a ServiceAuth under construction, for `partsOf`. */
export function keepParts(auth: ServiceAuth, parts: AuthParts): void {
  PARTS_OF.set(auth, parts);
}

/** Records that a ServiceAuth is mounted on an application, for `mountedOn`. */
export function markMounted(app: object, auth: ServiceAuth): void {
  Object.defineProperty(app, INSTANCE, { value: auth, configurable: true });
}

/** The ServiceAuth mounted on an application, if any. */
export function mountedOn(app: object): ServiceAuth | undefined {
  return (app as { [INSTANCE]?: ServiceAuth })[INSTANCE];
}
