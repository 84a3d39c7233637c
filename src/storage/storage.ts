/**
 * The package's handle on its database: one MikroORM instance, opened once, and an entity
 * manager per unit of work. Inside an auth request that is the request's fork (RequestContext
 * under our own context name, so an application's own MikroORM context is never picked up);
 * elsewhere each call gets a fresh fork.
 */
import { RequestContext } from '@mikro-orm/core';
import type { RequestHandler } from 'express';
import { CONTEXT_NAME, openOrm, type EntityManager, type Orm } from './orm.js';

/**
 * How long a row read for a credential (session, token, user) may be served from memory. A change
 * made by another instance sharing the database (a logout, a revocation, a role taken away) shows
 * within this time, and CONTRACT sections 4 and 10 promise within one second.
 */
export const REVALIDATE_MS = 500;

export class Storage {
  readonly ready: Promise<Orm>;
  private orm: Orm | undefined;
  private closed = false;

  constructor(readonly databaseUrl: string, options: { migrate: boolean }) {
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
    return (RequestContext.getEntityManager(CONTEXT_NAME) as EntityManager | undefined) ?? (orm.em.fork() as EntityManager);
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
    await this.orm?.close(true);
  }
}
