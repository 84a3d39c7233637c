import { DriverException, LockWaitTimeoutException } from '@mikro-orm/core';

// Network failures, and PostgreSQL's connection exceptions (class 08) and shutdown states.
const UNREACHABLE_CODES =
  /^(ECONNREFUSED|ECONNRESET|ETIMEDOUT|EHOSTUNREACH|ENETUNREACH|ENOTFOUND|EAI_AGAIN|EPIPE|08[0-9A-Z]{3}|57P0[123])$/;

/**
 * A database error that says "not reachable now" rather than "this request went wrong": the
 * server is down or restarting, or the network to it is, and retrying later can succeed, so the
 * client is told 503, not 500. (A connection lost during a commit can leave the write done.)
 */
export function isDatabaseUnreachable(error: unknown): boolean {
  if (!(error instanceof DriverException)) return false;
  // node-postgres reports a connection dropped mid-query without a code.
  return (
    UNREACHABLE_CODES.test(String(error.code ?? '')) ||
    /Connection terminated|Timeout acquiring a connection/i.test(error.message)
  );
}

/**
 * Another connection kept SQLite's write lock for longer than the package waits for it (sqlite.ts):
 * the database is busy, not broken, and retrying later can succeed, so the client is told 503.
 * The transaction took the lock before anything else, so nothing of it was written. MikroORM
 * converts the driver's error, except when it comes from `BEGIN IMMEDIATE` itself.
 */
export function isDatabaseBusy(error: unknown): boolean {
  return (
    error instanceof LockWaitTimeoutException ||
    (error instanceof Error && (error as { code?: unknown }).code === 'SQLITE_BUSY') || // sqlite3 (MikroORM 6)
    (error instanceof Error && ((error as { errcode?: number }).errcode! & 0xff) === 5) // node:sqlite (7)
  );
}
