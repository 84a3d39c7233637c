/**
 * The package's handle on its database: one MikroORM instance, opened once, and an entity
 * manager per unit of work. Inside an auth request that is the request's fork (RequestContext
 * under our own context name, so an application's own MikroORM context is never picked up);
 * elsewhere each call gets a fresh fork.
 */
import { RequestContext } from '@mikro-orm/core';
import type { RequestHandler } from 'express';
import type { LoggerHolder } from '../logger.js';
import { ChangeFeed } from './change-feed.js';
import { CONTEXT_NAME, openOrm, type EntityManager, type Orm } from './orm.js';

/** A unit of work in progress: its entity manager, and what to do last before and once it has committed. */
export interface Transaction {
  readonly em: EntityManager;
  /**
   * Runs `action` inside the transaction after the work itself, in the order registered: the audit
   * record of a change (src/audit/) goes last, so that the chain's lock is held only until commit.
   */
  beforeCommit(action: (em: EntityManager) => Promise<void>): void;
  afterCommit(action: () => void): void;
}

export class Storage {
  readonly ready: Promise<Orm>;
  /** What changed in users' credentials, written by whoever changes them and read by every cache of them. */
  readonly changes = new ChangeFeed(() => this.em());
  private orm: Orm | undefined;
  private closed = false;

  constructor(
    readonly databaseUrl: string,
    options: { migrate: boolean; log?: LoggerHolder },
  ) {
    this.ready = openOrm(databaseUrl, options).then(async (orm) => {
      this.orm = orm;
      if (this.closed) await orm.close(true);
      return orm;
    });
    // Callers observe failures through `ready`; never crash the process on an unobserved one.
    this.ready.catch(() => undefined);
  }

  /** The entity manager for the current request, or a fresh fork outside one. */
  async em(): Promise<EntityManager> {
    const orm = this.orm ?? (await this.ready);
    return (
      (RequestContext.getEntityManager(CONTEXT_NAME) as EntityManager | undefined) ?? (orm.em.fork() as EntityManager)
    );
  }

  /**
   * Runs `work` in a transaction of `em` (the entity manager that loaded what `work` changes), and
   * then, once it committed, the actions `work` registered with `tx.afterCommit` (a cache dropping
   * what the transaction changed: done earlier, a read in between could cache the old row again).
   *
   * On SQLite the transaction begins by taking the write lock, waiting its turn if another
   * connection holds it (sqlite.ts); past that wait it fails with a LockWaitTimeoutException,
   * which a request answers with 503 `unavailable` (outages.ts).
   */
  async transaction<T>(em: EntityManager, work: (tx: Transaction) => Promise<T>): Promise<T> {
    const actions: (() => void)[] = [];
    const result = await em.transactional(async (inner) => {
      const last: ((em: EntityManager) => Promise<void>)[] = [];
      const tx: Transaction = {
        em: inner as EntityManager,
        beforeCommit: (action) => last.push(action),
        afterCommit: (action) => actions.push(action),
      };
      const result = await work(tx);
      if (last.length > 0) {
        // The work's own writes first: what runs last holds its locks only until the commit.
        await tx.em.flush();
        // Actions may register more (an audit record's handlers run after commit).
        for (let i = 0; i < last.length; i++) await last[i]!(tx.em);
      }
      return result;
    });
    for (const action of actions) action();
    return result;
  }

  /** Runs the rest of the request with its own fork (one `em.fork()` per request). */
  readonly requestContext: RequestHandler = (_req, _res, next) => {
    if (!this.orm) {
      next();
      return;
    }
    RequestContext.create(this.orm.em, next);
  };

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    if (this.orm) {
      await this.orm.close(true);
      return;
    }
    // Still opening: `ready` closes the connection as soon as it is open (see the constructor);
    // wait for that, so that nothing is left open when close() resolves.
    await this.ready.catch(() => undefined);
  }
}
