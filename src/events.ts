/**
 * The lifecycle events. Handlers get the user, run one after another in registration order, each
 * awaited, after the change is committed and before the response goes out; but for the work done
 * after the answer so that it tells nobody whether an address has an account
 * (`password_reset_requested`, and `user_registered` with SERVICE_AUTH_EMAIL_CONFIRMATION on).
 * `user_deleted` gets the user as it was. A handler that throws is logged and changes neither the
 * response nor the other handlers.
 */
import { logError, type LoggerHolder } from './logger.js';
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
] as const;

export type EventName = (typeof EVENT_NAMES)[number];
export type EventHandler = (user: AuthUser) => unknown;

export class EventBus {
  private readonly handlers = new Map<EventName, EventHandler[]>(EVENT_NAMES.map((name) => [name, []]));

  constructor(private readonly log: LoggerHolder) {}

  /** Registers `handler`; returns a function that unregisters it. */
  subscribe(name: string, handler: EventHandler): () => void {
    const list = this.listFor(name);
    if (typeof handler !== 'function') throw new TypeError(`auth.on('${name}', handler): handler must be a function`);
    list.push(handler);
    return () => {
      const index = list.indexOf(handler);
      if (index >= 0) list.splice(index, 1);
    };
  }

  /** Validates the name now, so that a typo fails where it is written, not when nothing fires. */
  listFor(name: string): EventHandler[] {
    const list = this.handlers.get(name as EventName);
    if (!list) {
      throw new TypeError(`Unknown event ${JSON.stringify(name)}; the events are ${EVENT_NAMES.join(', ')}`);
    }
    return list;
  }

  /** Runs the handlers one after another; returns how many there were. */
  async emit(name: EventName, user: AuthUser): Promise<number> {
    // A copy: a handler that unsubscribes itself does not make the next one skip.
    const handlers = [...this.listFor(name)];
    for (const handler of handlers) {
      try {
        await handler(user);
      } catch (error) {
        logError(this.log.logger, 'error', `a ${name} handler failed (user ${user.id})`, error);
      }
    }
    return handlers.length;
  }
}
