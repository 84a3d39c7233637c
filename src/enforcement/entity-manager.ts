/**
 * `req.em`: a fork of the application's EntityManager, of a subclass made for its driver's own
 * EntityManager class (so it is the application's kind of EntityManager), bound to an ability:
 *
 * - every condition MikroORM builds for an entity (a query, a count, a joined or lazily loaded
 *   relation, a reference joined to tell whether it is there) gets the read condition
 *   (access-conditions.ts), whatever filters the caller turns off: it is added by `applyFilters`,
 *   the one place MikroORM asks for them, not registered as a filter one could disable;
 * - `flush` runs in a transaction (its own, or the caller's), in which the flush check
 *   (flush-check.ts) decides on the change sets before anything is written;
 * - it is its own context: a fork with `useContext: true` or a RequestContext around it never
 *   hands its work to an unbound EntityManager; in the application's transaction
 *   (`orm.em.transactional`) a bound fork of it joins that transaction;
 * - what cannot be checked (raw SQL, a query builder, the connection, the driver's own reads and
 *   writes, the native bulk writes, `$some`/`$none`/`$every` and `raw()` keys in a where clause,
 *   an explicit result-cache key) is a TypeError saying why (refusals.ts).
 *
 * Its bookkeeping is bindings.ts; its flushes and transactions, transactions.ts.
 */
import { QueryHelper, TransactionContext, Utils } from '@mikro-orm/core';
import type { EntityManager, MikroORM } from '@mikro-orm/core';
import type { SqlEntityManager } from '@mikro-orm/knex';
import { AuthError } from '../errors.js';
import { readCondition } from './access-conditions.js';
import { answersItself, asItself, bind, bindingOf, unread, type Binding } from './bindings.js';
import { withReadConditions } from './collection-operators.js';
import { assertLockable, countByAsMikroOrm } from './mikro-orm-work.js';
import type { Cached, Overridden } from './entity-manager-methods.js';
import { hasTenantSetting } from '../storage/tenant-setting.js';
import { scopeToTenant } from './tenant-scope.js';
import { asCaller, asMikroOrm, flushInTransaction, mikroOrmAtWork } from './transactions.js';
import {
  assertCacheable,
  assertCheckableWhere,
  cacheable,
  cacheableWhere,
  guardedDriver,
  refuseUnenforceable,
} from './refusals.js';

/** EntityManagers whose constructor has returned: MikroORM's parts take the real driver while it runs. */
const CONSTRUCTED = new WeakSet<object>();
/** The bound fork of an EntityManager that joins an application's transaction, by that transaction's EntityManager. */
const JOINED = new WeakMap<object, WeakMap<object, Overridden>>();
type Base = new (...args: never[]) => SqlEntityManager;

const subclasses = new WeakMap<object, Base>();
const roots = new WeakMap<MikroORM, SqlEntityManager>();

/** A new fork of `orm`'s EntityManager, bound. */
export function enforcedFork(orm: MikroORM, binding: Binding): EntityManager {
  let root = roots.get(orm);
  if (!root) {
    const Enforced = subclassOf(orm.em.constructor as Base);
    // A root of that class that nothing uses but to fork: forks are made by `new em.constructor`.
    const Constructor = Enforced as unknown as new (...args: unknown[]) => SqlEntityManager;
    root = new Constructor(orm.config, orm.em.getDriver(), orm.getMetadata(), false, orm.em.getEventManager());
    roots.set(orm, root);
  }
  bind(root, binding);
  const fork = root.fork();
  bind(root, undefined);
  return fork;
}

function subclassOf(Base: Base): Base {
  let Enforced = subclasses.get(Base);
  if (Enforced) return Enforced;
  const base = Base.prototype as unknown as Record<string, (...args: unknown[]) => unknown>;
  class EnforcedEntityManager extends (Base as unknown as new (...args: unknown[]) => Overridden) {
    constructor(...args: unknown[]) {
      super(...args);
      // The loader reads a many-to-many's pivot rows in req.em's transaction, which it asks req.em for.
      const loader = this.getEntityLoader() as { populate: (...args: unknown[]) => Promise<unknown> };
      const populate = loader.populate.bind(loader);
      loader.populate = (...args: unknown[]) => asMikroOrm(() => populate(...args));
      CONSTRUCTED.add(this);
    }

    /**
     * Its transaction, to MikroORM at work and under row-level security (where raw SQL in it is
     * bound to the organization: docs/row-level-security.md); otherwise a TypeError, since raw SQL
     * through the transaction would go around the ability as `execute` would.
     */
    override getTransactionContext(): unknown {
      const context = super.getTransactionContext();
      if (context === undefined || !bindingOf(this) || mikroOrmAtWork() || hasTenantSetting(this.config as never))
        return context;
      throw new TypeError(
        "req.em.getTransactionContext() hands out the transaction's connection, whose raw SQL cannot be checked " +
          "against the request's ability: use the application's own EntityManager for it, knowingly, or row-level " +
          'security (docs/row-level-security.md)',
      );
    }

    /** Itself, never a RequestContext's EntityManager (MikroORM runs every method on `getContext()`), nor an unbound transaction's. */
    override getContext(validate?: boolean): Overridden {
      const binding = bindingOf(this);
      if (answersItself(this)) return this;
      if (!binding) return super.getContext(validate);
      const context = super.getContext(false);
      // Its own transaction's fork is bound as it is; a RequestContext's EntityManager is never used.
      if (context !== this && bindingOf(context) === binding) return context;
      const outer = TransactionContext.getEntityManager(this.name) as Overridden | undefined;
      if (!outer || bindingOf(outer) || asItself(this, () => super.getTransactionContext())) return this;
      const transaction = outer.getTransactionContext();
      if (!transaction) return this;
      // In the application's transaction (`orm.em.transactional`): a bound fork joins it, one per transaction.
      const forks = JOINED.get(outer) ?? new WeakMap<object, Overridden>();
      JOINED.set(outer, forks);
      let joined = forks.get(this);
      if (!joined) {
        const fork = super.fork({ clear: false, disableContextResolution: true });
        bind(fork, binding);
        asItself(fork, () => fork.setTransactionContext(transaction));
        forks.set(this, (joined = fork));
      }
      return joined;
    }

    /** The driver, whose own reads and writes throw (refusals.ts), but while MikroORM builds this EntityManager or flushes. */
    override getDriver(): object {
      const driver = super.getDriver();
      return CONSTRUCTED.has(this) && bindingOf(this) ? guardedDriver(driver, mikroOrmAtWork) : driver;
    }

    override tryCache(
      entityName: unknown,
      config: unknown,
      key: unknown,
      refresh?: boolean,
      merge?: boolean,
    ): Promise<Cached> {
      const caching = config ?? this.config.get('resultCache').global;
      assertCacheable(caching);
      const cached = super.tryCache(entityName, config, key, refresh, merge);
      // Entities made from the cache were not read by req.em: the flush reads them again. (No cache, no promise more.)
      return !caching ? cached : cached.then((found) => (unreadAll(found?.data), found));
    }

    /** Kept apart by ability and organization (refusals.ts); MikroORM asks for it even when nothing is cached. */
    override cacheKey(entityName: string, options: object, method: string, where: unknown): unknown {
      const binding = bindingOf(this);
      const caching = (options as { cache?: unknown }).cache ?? this.config.get('resultCache').global;
      if (!binding || !caching) return super.cacheKey(entityName, options, method, where);
      return super.cacheKey(entityName, cacheable(binding.bound, options), method, cacheableWhere(where));
    }

    override fork(options?: object): Overridden {
      const fork = super.fork(options);
      const binding = bindingOf(this);
      if (binding) bind(fork, binding);
      return fork;
    }

    override async applyFilters(
      entityName: string,
      where: unknown,
      options: unknown,
      type: string,
      find?: unknown,
    ): Promise<unknown> {
      const binding = bindingOf(this);
      const meta = this.getMetadata().find(entityName);
      if (binding && meta) {
        assertCheckableWhere(where);
        where = withReadConditions(where, meta, binding, this as unknown as SqlEntityManager);
      }
      where = await super.applyFilters(entityName, where, options, type, find);
      if (!binding || !meta || binding.open.has(meta.className)) return where;
      const condition = QueryHelper.processWhere({
        where: readCondition(binding, binding.bound, meta, this as unknown as SqlEntityManager),
        entityName,
        metadata: this.getMetadata(),
        platform: this.getPlatform(),
        aliased: type === 'read',
      });
      return where && Utils.hasObjectKeys(where) ? { $and: [condition, where] } : condition;
    }

    override merge(...args: unknown[]): unknown {
      return unread(super.merge(...args));
    }

    override map(...args: unknown[]): unknown {
      return unread(super.map(...args));
    }

    override create(...args: unknown[]): unknown {
      const entity = super.create(...args);
      return (args[2] as { managed?: boolean } | undefined)?.managed ? unread(entity) : entity;
    }

    /** A row the ability may not read is not there: `findOneOrFail` fails as for a missing one (404). */
    override findOneOrFail(entityName: unknown, where: unknown, options?: object): Promise<unknown> {
      const name = this.getMetadata().find(Utils.className(entityName as string))?.className ?? String(entityName);
      const failHandler = (): Error => new AuthError('not_found', `No such ${name}`);
      return super.findOneOrFail(entityName, where, { failHandler, ...options });
    }

    /** In a transaction (the caller's, or one of its own), so that the check and the writes see the same rows. */
    override flush(): Promise<void> {
      return flushInTransaction(this, () => super.flush());
    }

    /**
     * MikroORM opens the transaction on the connection itself; the callback runs outside that
     * permission, so that the EntityManager it is handed refuses the connection as req.em does.
     */
    override transactional(callback: (em: unknown) => unknown, options?: object): Promise<unknown> {
      return asMikroOrm(() => super.transactional((em) => asCaller(() => callback(em)), options));
    }

    /** A pessimistic lock is taken in the transaction, which MikroORM asks req.em for; on a readable row only. */
    override async lock(entity: object, lockMode: number, options?: object): Promise<void> {
      await assertLockable(this, entity, lockMode);
      return asMikroOrm(() => super.lock(entity, lockMode, options));
    }

    override begin(options?: object): Promise<void> {
      return asMikroOrm(() => super.begin(options));
    }

    override commit(): Promise<void> {
      return asMikroOrm(() => super.commit());
    }

    override rollback(): Promise<void> {
      return asMikroOrm(() => super.rollback());
    }
  }
  refuseUnenforceable(EnforcedEntityManager.prototype as unknown as Record<string, unknown>, base, mikroOrmAtWork);
  countByAsMikroOrm(EnforcedEntityManager.prototype as unknown as Record<string, unknown>, base);
  scopeToTenant(
    EnforcedEntityManager.prototype as unknown as Record<string, unknown>,
    (em) => bindingOf(em)?.bound.org?.id,
  );
  Enforced = EnforcedEntityManager as unknown as Base;
  subclasses.set(Base, Enforced);
  return Enforced;
}

/** Marks each entity of a cached result as not read by req.em (unread). */
function unreadAll(data: unknown): void {
  for (const entity of Array.isArray(data) ? data : [data]) unread(entity);
}
