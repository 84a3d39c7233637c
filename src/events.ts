/**
 * The lifecycle events. Handlers get the user, run one after another in registration order, each
 * awaited, after the change is committed and before the response goes out; but for the work done
 * after the answer so that it tells nobody whether an address has an account
 * (`password_reset_requested`, and `user_registered` with SERVICE_AUTH_EMAIL_CONFIRMATION on).
 * `user_deleted` gets the user as it was. A handler that throws is logged and changes neither the
 * response nor the other handlers.
 *
 * The organization events (src/orgs/) are handed the acting user (null for the CLI or code that
 * named none) and what happened: `{ org, member?, roles? }`.
 */
import { logError, type LoggerHolder } from './logger.js';
import type { OrgInfo } from './orgs/views.js';
import type { AuthUser } from './users/auth-user.js';

export const EVENT_NAMES = [
  'user_registered',
  'user_login',
  'user_logout',
  'password_reset_requested',
  'password_reset_completed',
  'user_disabled',
  'user_enabled',
  'user_deleted',
  'password_changed',
  'email_confirmed',
  'email_changed',
  'identity_linked',
  'identity_unlinked',
] as const;

export const ORG_EVENT_NAMES = [
  'org_created',
  'org_deleted',
  'member_added',
  'member_removed',
  'member_roles_changed',
  'invitation_created',
  'invitation_accepted',
] as const;

export type EventName = (typeof EVENT_NAMES)[number];
export type EventHandler = (user: AuthUser) => unknown;
export type OrgEventName = (typeof ORG_EVENT_NAMES)[number];

/** What an organization event is about: the organization, and the member and roles concerned. */
export interface OrgEventDetail {
  org: OrgInfo;
  /** The member added, removed or changed, or who accepted; for `invitation_created`, the address invited (`user_id` null). */
  member?: { user_id: number | null; email: string };
  /** The member's roles now, or the roles invited with. */
  roles?: string[];
}

/** Handed the acting user (null when the CLI or code named none) and what happened. */
export type OrgEventHandler = (actor: AuthUser | null, detail: OrgEventDetail) => unknown;

type AnyHandler = (first: AuthUser | null, detail?: OrgEventDetail) => unknown;
const ALL_NAMES: readonly string[] = [...EVENT_NAMES, ...ORG_EVENT_NAMES];

export class EventBus {
  private readonly handlers = new Map<string, AnyHandler[]>(ALL_NAMES.map((name) => [name, []]));

  constructor(private readonly log: LoggerHolder) {}

  /** Registers `handler`; returns a function that unregisters it. */
  subscribe(name: string, handler: EventHandler | OrgEventHandler): () => void {
    const list = this.listFor(name);
    if (typeof handler !== 'function') throw new TypeError(`auth.on('${name}', handler): handler must be a function`);
    const any = handler as AnyHandler;
    list.push(any);
    return () => {
      const index = list.indexOf(any);
      if (index >= 0) list.splice(index, 1);
    };
  }

  /** Validates the name now, so that a typo fails where it is written, not when nothing fires. */
  listFor(name: string): AnyHandler[] {
    const list = this.handlers.get(name);
    if (!list) {
      throw new TypeError(`Unknown event ${JSON.stringify(name)}; the events are ${ALL_NAMES.join(', ')}`);
    }
    return list;
  }

  /** Runs the handlers one after another; returns how many there were. */
  async emit(name: EventName, user: AuthUser): Promise<number> {
    return this.run(name, [user], `user ${user.id}`);
  }

  /** Runs an organization event's handlers one after another; returns how many there were. */
  async emitOrg(name: OrgEventName, actor: AuthUser | null, detail: OrgEventDetail): Promise<number> {
    return this.run(name, [actor, detail], `organization ${detail.org.id}`);
  }

  private async run(name: string, args: [AuthUser | null, OrgEventDetail?], about: string): Promise<number> {
    // A copy: a handler that unsubscribes itself does not make the next one skip.
    const handlers = [...this.listFor(name)];
    for (const handler of handlers) {
      try {
        await handler(...args);
      } catch (error) {
        logError(this.log.logger, 'error', `a ${name} handler failed (${about})`, error);
      }
    }
    return handlers.length;
  }
}
