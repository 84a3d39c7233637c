/**
 * Who is acting, and from where, for the records written while they act: set once where a request
 * or a command begins (the package's router, the CLI), read by the audit log, so that the services
 * that record (users, tokens, sessions) need not be handed a request. Code outside both, an
 * application calling `auth.users.disable(…)`, is the actor `api`.
 */
import { AsyncLocalStorage } from 'node:async_hooks';
import type { Actor } from './records.js';

export interface AuditContext {
  actor: Actor;
  /** The rate limiter's client key: the socket's address, or the trusted proxy's forwarded one. */
  ip?: string;
  userAgent?: string;
  /** The user really acting, while they act as another (src/impersonation/): named in every record's detail. */
  impersonator?: number;
  /** The signed-in user acting on someone else's account (the admin console): their id, as the detail's `by`. */
  by?: number;
}

const contexts = new AsyncLocalStorage<AuditContext>();
const API: AuditContext = { actor: 'api' };

/** Runs `work` with this context for every record written within it. */
export function withAuditContext<T>(context: AuditContext, work: () => T): T {
  return contexts.run(context, work);
}

export function auditContext(): AuditContext {
  return contexts.getStore() ?? API;
}

/**
 * Notes, for the rest of the request, that its user is being impersonated by this user: set where
 * the credentials of an impersonation are resolved. A context of its own (a request to the
 * package's routes, a command) is marked; the shared one of code outside them is never changed.
 */
export function noteImpersonator(userId: number): void {
  const context = contexts.getStore();
  if (context) context.impersonator = userId;
}
