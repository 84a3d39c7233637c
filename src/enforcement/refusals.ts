/**
 * What req.em refuses of what it is handed, rather than let it around the read condition:
 *
 * - `raw()` fragments as keys or values in a `where` (SQL the read condition cannot see into; the collection
 *   operators are limited to readable rows instead: collection-operators.ts);
 * - an explicit result-cache key (`cache: ['key', ttl]`): the cache is shared by every
 *   EntityManager, so one request's rows would be another's (other keys are kept apart by ability);
 * - the driver's own reads and writes (`getDriver().find(…)`, `.execute(…)`, `.nativeUpdate(…)`).
 */
import { randomUUID } from 'node:crypto';
import { RawQueryFragment, Utils } from '@mikro-orm/core';
import { AuthError } from '../errors.js';
import type { Bound } from './access-conditions.js';

/** Throws a TypeError for the first raw fragment, as a key or a value, in `where`, at any depth. */
export function assertCheckableWhere(where: unknown): void {
  if (isRaw(where)) throw rawRefusal();
  if (Array.isArray(where)) {
    for (const part of where) assertCheckableWhere(part);
    return;
  }
  if (!Utils.isPlainObject(where)) return;
  for (const key of Reflect.ownKeys(where)) {
    if (isRaw(key)) throw rawRefusal();
    assertCheckableWhere((where as Record<string | symbol, unknown>)[key]);
  }
}

/** MikroORM 6's `isRaw` and 7's `isKnownFragmentSymbol` (a fragment as a key is a symbol on 7), where they are. */
const fragments = RawQueryFragment as unknown as Partial<
  Record<'isRaw' | 'isKnownFragmentSymbol', (v: unknown) => boolean>
>;

/** MikroORM's `raw()` or `sql` fragment (or the key or string it stands for), or knex's own `raw()`. */
function isRaw(value: unknown): boolean {
  if (typeof value === 'string') return RawQueryFragment.isKnownFragment(value) || value.startsWith('[raw]');
  if (typeof value === 'symbol') return fragments.isKnownFragmentSymbol?.(value) === true;
  if (value === null || typeof value !== 'object') return false;
  if (value instanceof RawQueryFragment || fragments.isRaw?.(value)) return true;
  return (value as { isRawInstance?: unknown }).isRawInstance === true;
}

function rawRefusal(): TypeError {
  return new TypeError(
    "req.em cannot check a raw() fragment in a where clause: use the application's own EntityManager for it, knowingly",
  );
}

/** Throws a TypeError for an explicit result-cache key, which every EntityManager shares. */
export function assertCacheable(config: unknown): void {
  if (!Array.isArray(config)) return;
  throw new TypeError(
    "req.em cannot use an explicit result-cache key (cache: ['key', ttl]): the cache is shared by every EntityManager, " +
      'so the rows one request may read would be handed to another; use cache: true or a number, ' +
      'which req.em keys by the query, its ability and its organization',
  );
}

/**
 * A where clause as a result-cache key can hold it: a subquery (a rule that follows relations) as
 * its SQL, bound values included, so that the key tells two read conditions apart.
 */
export function cacheableWhere(where: unknown): unknown {
  if (Array.isArray(where)) return where.map(cacheableWhere);
  const query = where as { toQuery?: unknown } | null;
  if (query !== null && typeof query === 'object' && typeof query.toQuery === 'function')
    return { $sql: String(query.toQuery()) };
  if (!Utils.isPlainObject(where)) return where;
  return Object.fromEntries(Object.entries(where).map(([key, value]) => [key, cacheableWhere(value)]));
}

const abilityKeys = new WeakMap<object, string>();

/**
 * A result-cache key's options for a bound EntityManager: with the ability (a random id for each,
 * as long as it lives: the cache may be shared by processes) and organization, since the rows of
 * populated relations are cached with the root's, and the query does not say which of them the
 * ability may read; the joined relations' conditions in them as cacheableWhere makes them.
 */
export function cacheable(bound: Bound, options: object): object {
  let key = abilityKeys.get(bound.ability);
  if (key === undefined) abilityKeys.set(bound.ability, (key = randomUUID()));
  return { ...(cacheableWhere(options) as object), serviceAuth: [key, bound.org?.id ?? null] };
}

/** The driver's methods that read or write around the read condition and the flush check. */
const DRIVER_UNCHECKED = new Set([
  ...[
    'execute',
    'getConnection',
    'createQueryBuilder',
    'find',
    'findOne',
    'findVirtual',
    'count',
    'countVirtual',
    'stream',
  ],
  ...['nativeInsert', 'nativeInsertMany', 'nativeUpdate', 'nativeUpdateMany', 'nativeDelete', 'aggregate'],
]);

/**
 * The driver as req.em hands it out: its methods that read or write throw a TypeError, unless
 * `internal()` says MikroORM itself is using it (a flush, a transaction).
 */
export function guardedDriver<T extends object>(driver: T, internal: () => boolean): T {
  return new Proxy(driver, {
    get(target, name, receiver): unknown {
      const value: unknown = Reflect.get(target, name, receiver);
      if (typeof value !== 'function') return value;
      const method = value as (...args: unknown[]) => unknown;
      if (typeof name === 'string' && DRIVER_UNCHECKED.has(name) && !internal()) {
        return () => {
          throw new TypeError(
            `req.em.getDriver().${name}() cannot be checked against the request's ability: ` +
              "use the application's own EntityManager for it, knowingly, and decide with req.ability or accessibleBy yourself",
          );
        };
      }
      return method.bind(target);
    },
  });
}

/** EntityManager methods that would reach the database around the checks. */
const UNENFORCEABLE = [
  ...['execute', 'getConnection', 'getKnex', 'getKysely', 'callRoutine', 'createQueryBuilder', 'qb'], // Kysely, routines: 7's
  ...['insert', 'insertMany', 'nativeUpdate', 'nativeDelete', 'upsert', 'upsertMany'],
];

type Methods = Record<string, (...args: unknown[]) => unknown>;

/** What MikroORM itself asks of req.em while at work (`internal()`): the connection, and 7's `countBy` its query builder. */
const OPEN_TO_MIKRO_ORM = new Set(['getConnection', 'createQueryBuilder']);

/** Makes each of them on `prototype` a TypeError, but for MikroORM itself at work (`internal()`). */
export function refuseUnenforceable(prototype: Record<string, unknown>, base: Methods, internal: () => boolean): void {
  for (const name of UNENFORCEABLE) {
    if (typeof base[name] !== 'function') continue;
    prototype[name] = function (this: unknown, ...args: unknown[]) {
      if (OPEN_TO_MIKRO_ORM.has(name) && internal()) return base[name]!.apply(this, args);
      throw new TypeError(
        `req.em.${name}() cannot be checked against the request's ability ` +
          '(raw SQL, a query builder, the connection and native writes go around it): ' +
          "use the application's own EntityManager for it, knowingly, and decide with req.ability or accessibleBy yourself",
      );
    };
  }
}

/** A write the flush check refuses: `AuthError` 403 `forbidden`, naming entity, action and field. */
export function refusal(action: string, type: string, field: string | undefined, why?: string): AuthError {
  const detail = field ? `You may not ${action} the ${field} of this ${type}` : `You may not ${action} this ${type}`;
  const errors = field ? [{ field, message: why ?? `you may not ${action} this field` }] : undefined;
  return new AuthError('forbidden', why ? `${detail}: ${why}` : detail, errors);
}
