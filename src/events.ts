/**
 * The lifecycle events of CONTRACT section 8. Handlers get the user, run one after another in
 * registration order, each awaited, after the change is committed and before the response goes
 * out. A handler that throws is logged and changes neither the response nor the other handlers.
 */
import type { Logger } from './logger.js';
import type { AuthUser } from './users/auth-user.js';

export const EVENT_NAMES = [
  'user_registered',
  'user_login',
  'user_logout',
  'password_reset_requested',
  'password_reset_completed',
] as const;

export type EventName = (typeof EVENT_NAMES)[number];
export type EventHandler = (user: AuthUser) => unknown;

export class EventBus {
  private readonly handlers = new Map<EventName, EventHandler[]>(EVENT_NAMES.map((name) => [name, []]));

  constructor(private readonly logger: Logger) {}

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

  async emit(name: EventName, user: AuthUser): Promise<void> {
    // A copy: a handler that unsubscribes itself does not make the next one skip.
    for (const handler of [...this.listFor(name)]) {
      try {
        await handler(user);
      } catch (error) {
        this.logger.error(`a ${name} handler failed (user ${user.id})`, error);
      }
    }
  }
}
