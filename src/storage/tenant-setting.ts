/**
 * The organization of req.em's work, set in the database for row-level security
 * (SERVICE_AUTH_TENANT_RLS, tenant-policies.ts). req.em runs each of its methods within
 * `asTenant(orgId, …)`; the ORM's connection, patched once here, then
 *
 * - sets `service_auth.org_id` with `set_config(…, true)` first thing in each transaction it
 *   begins there (the flush's, `req.em.transactional`'s, `req.em.begin()`'s);
 * - runs each query made there outside a transaction (a `find`, a lazy load) in a transaction of
 *   its own that sets it first: the setting is transaction-local (SET LOCAL), so it can never stay
 *   on a pooled connection for the next request, and a query without it sees no tenant rows.
 *
 * Nothing else changes: the application's own EntityManager, outside req.em's methods, sets
 * nothing, and under the policies sees no tenant row. Queries wait for the start-up check of the
 * role (tenant-role-check.ts): none runs under a role the policies would not bind.
 */
import { AsyncLocalStorage } from 'node:async_hooks';
import type { Configuration, Connection, MikroORM } from '@mikro-orm/core';
import { TENANT_SETTING } from './tenant-policies.js';

const scope = new AsyncLocalStorage<string>();
/** The ORMs with row-level security on, by their configuration (which every fork of their EntityManager shares). */
const enabled = new WeakSet<Configuration>();

/** A transaction of the connection's (knex's on MikroORM 6, Kysely's on 7). */
type Transaction = object;
type Execute = (
  query: unknown,
  params?: unknown[],
  method?: string,
  ctx?: unknown,
  loggerContext?: unknown,
) => Promise<unknown>;
type Begin = (options?: { ctx?: unknown }) => Promise<Transaction>;
interface Patchable {
  execute: Execute;
  begin: Begin;
  transactional<T>(cb: (trx: Transaction) => Promise<T>, options?: object): Promise<T>;
}

/** Whether an EntityManager's ORM (by its configuration) has row-level security on. */
export function hasTenantSetting(config: Configuration): boolean {
  return enabled.has(config);
}

/** Runs `work` (and everything it starts) as organization `orgId` for the patched connections. */
export function asTenant<T>(orgId: number, work: () => T): T {
  return scope.run(String(orgId), work);
}

/** Sets the organization in `trx`, through the connection's own (unpatched) `execute`: MikroORM 6's and 7's alike. */
function setOrg(execute: Execute, trx: Transaction, org: string): Promise<unknown> {
  return execute(`select set_config('${TENANT_SETTING}', ?, true)`, [org], 'run', trx);
}

/** Whether a query is one of a transaction already (its own `ctx`, or a knex builder bound to one). */
function inTransaction(query: unknown, ctx: unknown): boolean {
  if (ctx) return true;
  const client = (query as { client?: { transacting?: boolean } } | null)?.client;
  return typeof query === 'object' && query !== null && client?.transacting === true;
}

function patch(connection: Patchable, checked: Promise<void>): void {
  const execute = connection.execute.bind(connection);
  const begin = connection.begin.bind(connection);
  connection.begin = async (options = {}) => {
    const org = scope.getStore();
    if (org === undefined) return begin(options);
    await checked;
    const trx = await begin(options);
    // A savepoint is within a transaction that has set it already.
    if (!options.ctx) await setOrg(execute, trx, org);
    return trx;
  };
  connection.execute = async (query, params, method, ctx, loggerContext) => {
    const org = scope.getStore();
    if (org === undefined || inTransaction(query, ctx)) return execute(query, params, method, ctx, loggerContext);
    await checked;
    // Its own transaction, begun outside the scope: the setting is set once, here.
    return scope.exit(() =>
      connection.transactional(async (trx) => {
        await setOrg(execute, trx, org);
        return execute(query, params, method, trx, loggerContext);
      }),
    );
  };
}

/**
 * Turns the tenant setting on for `orm`: its connections set the organization of req.em's work.
 * `checked` is the start-up check; until it resolves no such query runs, and if it rejects every
 * one fails with its error.
 */
export function enableTenantSetting(orm: MikroORM, checked: Promise<void>): void {
  if (enabled.has(orm.config)) return;
  enabled.add(orm.config);
  // Kept from being an unhandled rejection here: auth.enforce's caller and each query hear of it.
  checked.catch(() => undefined);
  const connections = new Set<Connection>([orm.em.getConnection('write'), orm.em.getConnection('read')]);
  for (const connection of connections) patch(connection as unknown as Patchable, checked);
}
