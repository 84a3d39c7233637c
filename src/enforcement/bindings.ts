/**
 * What req.em's EntityManagers carry beside MikroORM's own state: the binding (ability,
 * organization, open entities) each is bound to, and the entities whose loaded state it was handed
 * rather than read from the database itself. The class (entity-manager.ts) writes them; the flush
 * check (flush-check.ts) and the rows as they were (rows-as-they-were.ts) read them. Weak maps, so
 * that they go with the EntityManagers and entities they describe.
 */
import type { Binding } from './access-conditions.js';

export type { Binding };

const BINDINGS = new WeakMap<object, Binding>();
/** Entities whose loaded state req.em did not read from the database itself (merged, mapped, made managed). */
const UNREAD = new WeakSet<object>();

/** The binding of an enforced EntityManager, or undefined for any other. */
export function bindingOf(em: object): Binding | undefined {
  return BINDINGS.get(em);
}

/** Binds `em` to `binding`; undefined unbinds it. */
export function bind(em: object, binding: Binding | undefined): void {
  if (binding) BINDINGS.set(em, binding);
  else BINDINGS.delete(em);
}

/** Whether req.em read `entity`'s state from the database itself, rather than being handed it. */
export function readByItself(entity: object): boolean {
  return !UNREAD.has(entity);
}

/** Marks `entity` (if it is an object) as handed to req.em, not read by it; returns it. */
export function unread(entity: unknown): unknown {
  if (entity !== null && typeof entity === 'object') UNREAD.add(entity);
  return entity;
}

/** EntityManagers whose getContext answers themselves, so that get/setTransactionContext reach their own (private on 7). */
const OWN = new WeakSet<object>();

/** `work` with `em.getContext()` answering `em` itself. */
export function asItself<T>(em: object, work: () => T): T {
  OWN.add(em);
  try {
    return work();
  } finally {
    OWN.delete(em);
  }
}

/** Whether `em` is in `asItself`. */
export function answersItself(em: object): boolean {
  return OWN.has(em);
}
