/**
 * Work done after the response has gone, so that neither its content nor its timing tells what the
 * work found (whether an address has an account). Failures are logged, never answered; `flush()`
 * waits for what is still under way (at close).
 */
import { logError, type LoggerHolder } from '../logger.js';

export class BackgroundWork {
  private readonly pending = new Set<Promise<void>>();

  constructor(private readonly log: LoggerHolder) {}

  /** Runs `work` once the current request has been answered; `what` names it in a failure's log line. */
  run(what: string, work: () => Promise<void>): void {
    const done: Promise<void> = new Promise<void>((resolve) => setImmediate(resolve))
      .then(work)
      .catch((error: unknown) => logError(this.log.logger, 'error', `${what} could not be completed`, error))
      .finally(() => this.pending.delete(done));
    this.pending.add(done);
  }

  async flush(): Promise<void> {
    while (this.pending.size > 0) await Promise.all(this.pending);
  }
}
