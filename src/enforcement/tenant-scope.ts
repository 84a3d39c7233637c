/**
 * req.em's work as its organization, for PostgreSQL row-level security (SERVICE_AUTH_TENANT_RLS):
 * each method of req.em that reaches the database runs within the storage's tenant scope
 * (storage/tenant-setting.ts), which sets the organization in the transaction the work runs in.
 * Lazy references and collections load through these methods of the EntityManager that loaded
 * them, so they are covered too. Without an organization, or with the setting off, nothing is set.
 */
import type { Configuration } from '@mikro-orm/core';
import { asTenant, hasTenantSetting } from '../storage/tenant-setting.js';

/** The EntityManager methods that query or write (the ones req.em refuses are not here). */
const QUERYING = [
  ...['find', 'findOne', 'findOneOrFail', 'findAll', 'findAndCount', 'findByCursor', 'count', 'countBy', 'stream'],
  ...['populate', 'refresh', 'refreshOrFail', 'lock', 'flush', 'transactional', 'begin', 'commit'],
];

type Method = (...args: unknown[]) => unknown;

/** Wraps each of those methods of `prototype` (req.em's class) to run as the organization `orgOf` the EntityManager. */
export function scopeToTenant(prototype: Record<string, unknown>, orgOf: (em: object) => number | undefined): void {
  for (const name of QUERYING) {
    const method = prototype[name];
    if (typeof method !== 'function') continue;
    prototype[name] = function (this: { config: Configuration }, ...args: unknown[]): unknown {
      const org = hasTenantSetting(this.config) ? orgOf(this) : undefined;
      if (org === undefined) return (method as Method).apply(this, args);
      return asTenant(org, () => (method as Method).apply(this, args));
    };
  }
}
