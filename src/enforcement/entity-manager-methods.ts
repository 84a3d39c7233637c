/**
 * The methods of MikroORM's EntityManager that req.em's class (entity-manager.ts) overrides or
 * calls, typed loosely: MikroORM's own signatures are generic over every entity, which a subclass
 * made at run time for any driver's EntityManager cannot follow.
 */
import type { MetadataStorage, Platform } from '@mikro-orm/core';

/** What the result cache hands back. */
export type Cached = { data?: unknown } | undefined;

/** The methods overridden, typed loosely: MikroORM's own signatures are generic over every entity. */
export interface Overridden {
  disableTransactions: boolean;
  fork(options?: object): Overridden;
  applyFilters(
    entityName: string,
    where: unknown,
    options: unknown,
    type: string,
    findOptions?: unknown,
  ): Promise<unknown>;
  findOneOrFail(entityName: unknown, where: unknown, options?: object): Promise<unknown>;
  flush(): Promise<void>;
  transactional(callback: (em: unknown) => unknown, options?: object): Promise<unknown>;
  begin(options?: object): Promise<void>;
  lock(entity: object, lockMode: number, options?: object): Promise<void>;
  count(entityName: string, where: unknown): Promise<number>;
  /** Its own loader, while it is being built (not yet bound, it is its own context). */
  getEntityLoader(): object;
  commit(): Promise<void>;
  rollback(): Promise<void>;
  isInTransaction(): boolean;
  getConnection(type: 'write'): { commit(ctx: unknown, broadcaster: unknown): Promise<void> };
  getTransactionContext(): unknown;
  setTransactionContext(context: unknown): void;
  resetTransactionContext(): void;
  getMetadata(): MetadataStorage;
  merge(...args: unknown[]): unknown;
  map(...args: unknown[]): unknown;
  create(...args: unknown[]): unknown;
  getPlatform(): Platform;
  getDriver(): object;
  cacheKey(entityName: string, options: object, method: string, where: unknown): unknown;
  getContext(validate?: boolean): Overridden;
  name: string;
  tryCache(entityName: unknown, config: unknown, key: unknown, refresh?: boolean, merge?: boolean): Promise<Cached>;
  config: { get(name: 'resultCache'): { global?: unknown } };
}
