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
 * - what cannot be checked (raw SQL, a query builder, the connection, the native bulk writes) is a
 *   TypeError saying to use the application's own `em`, knowingly.
 */
import { AsyncLocalStorage } from 'node:async_hooks';
import { QueryHelper, TransactionEventBroadcaster, Utils } from '@mikro-orm/core';
import type { EntityManager, MetadataStorage, MikroORM, Platform } from '@mikro-orm/core';
import type { SqlEntityManager } from '@mikro-orm/knex';
import { AuthError } from '../errors.js';
import { readCondition, type AccessDeps, type Bound } from './access-conditions.js';

/** What an enforced EntityManager is bound to, and what it needs to decide. */
export interface Binding extends AccessDeps {
  bound: Bound;
  /** Entities every ability may read and write (`auth.enforce(orm, { public })`), by class name. */
  open: ReadonlySet<string>;
}

const BINDINGS = new WeakMap<object, Binding>();
/** Entities whose loaded state req.em did not read from the database itself (merged, mapped, made managed). */
const UNREAD = new WeakSet<object>();

/** Whether req.em read `entity`'s state from the database itself, rather than being handed it. */
export function readByItself(entity: object): boolean {
  return !UNREAD.has(entity);
}

/** The binding of an enforced EntityManager, or undefined for any other. */
export function bindingOf(em: object): Binding | undefined {
  return BINDINGS.get(em);
}

/** Methods that would reach the database around the checks. */
const UNENFORCEABLE = [
  ...['execute', 'getConnection', 'getKnex', 'createQueryBuilder', 'qb'],
  ...['insert', 'insertMany', 'nativeUpdate', 'nativeDelete', 'upsert', 'upsertMany'],
];

/** Set while MikroORM itself uses the connection for a flush or a transaction of req.em. */
const internal = new AsyncLocalStorage<true>();

type Base = new (...args: never[]) => SqlEntityManager;

/** The methods overridden, typed loosely: MikroORM's own signatures are generic over every entity. */
interface Overridden {
  disableTransactions: boolean;
  fork(options?: object): Overridden;
  applyFilters(entityName: string, where: unknown, options: unknown, type: string, findOptions?: unknown): Promise<unknown>;
  findOneOrFail(entityName: unknown, where: unknown, options?: object): Promise<unknown>;
  flush(): Promise<void>;
  transactional(callback: (em: unknown) => unknown, options?: object): Promise<unknown>;
  begin(options?: object): Promise<void>;
  commit(): Promise<void>;
  rollback(): Promise<void>;
  isInTransaction(): boolean;
  getConnection(type: 'write'): { commit(ctx: unknown, broadcaster: unknown): Promise<void> };
  getTransactionContext(): unknown;
  resetTransactionContext(): void;
  getMetadata(): MetadataStorage;
  merge(...args: unknown[]): unknown;
  map(...args: unknown[]): unknown;
  create(...args: unknown[]): unknown;
  getPlatform(): Platform;
}
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
  BINDINGS.set(root, binding);
  const fork = root.fork();
  BINDINGS.delete(root);
  return fork;
}

function unread(entity: unknown): unknown {
  if (entity !== null && typeof entity === 'object') UNREAD.add(entity);
  return entity;
}

function subclassOf(Base: Base): Base {
  let Enforced = subclasses.get(Base);
  if (Enforced) return Enforced;
  const base = Base.prototype as unknown as Record<string, (...args: unknown[]) => unknown>;
  class EnforcedEntityManager extends (Base as unknown as new (...args: unknown[]) => Overridden) {
    override fork(options?: object): Overridden {
      const fork = super.fork(options);
      const binding = BINDINGS.get(this);
      if (binding) BINDINGS.set(fork, binding);
      return fork;
    }

    override async applyFilters(entityName: string, where: unknown, options: unknown, type: string, find?: unknown): Promise<unknown> {
      where = await super.applyFilters(entityName, where, options, type, find);
      const binding = BINDINGS.get(this);
      const meta = this.getMetadata().find(entityName);
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
    override async flush(): Promise<void> {
      await internal.run(true, async () => {
        if (this.isInTransaction() || this.disableTransactions) return super.flush();
        await this.begin();
        try {
          await super.flush();
          // What `commit()` does, without the second flush it starts with (all is flushed).
          await this.getConnection('write').commit(this.getTransactionContext(), new TransactionEventBroadcaster(this as never));
          this.resetTransactionContext();
        } catch (error) {
          await this.rollback();
          throw error;
        }
      });
    }

    /**
     * MikroORM opens the transaction on the connection itself; the callback runs outside that
     * permission, so that the EntityManager it is handed refuses the connection as req.em does.
     */
    override transactional(callback: (em: unknown) => unknown, options?: object): Promise<unknown> {
      return internal.run(true, () => super.transactional((em) => internal.exit(() => callback(em)), options));
    }

    override begin(options?: object): Promise<void> {
      return internal.run(true, () => super.begin(options));
    }

    override commit(): Promise<void> {
      return internal.run(true, () => super.commit());
    }

    override rollback(): Promise<void> {
      return internal.run(true, () => super.rollback());
    }
  }
  const prototype = EnforcedEntityManager.prototype as unknown as Record<string, unknown>;
  for (const name of UNENFORCEABLE) {
    if (typeof base[name] !== 'function') continue;
    prototype[name] = function (this: SqlEntityManager, ...args: unknown[]) {
      if (name === 'getConnection' && internal.getStore()) return base[name]!.apply(this, args);
      throw new TypeError(
        `req.em.${name}() cannot be checked against the request's ability ` +
          '(raw SQL, a query builder, the connection and native writes go around it): ' +
          "use the application's own EntityManager for it, knowingly, and decide with req.ability or accessibleBy yourself",
      );
    };
  }
  Enforced = EnforcedEntityManager as unknown as Base;
  subclasses.set(Base, Enforced);
  return Enforced;
}
