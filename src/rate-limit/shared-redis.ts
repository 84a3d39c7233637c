/**
 * The one Redis connection an instance's limiters share, and how it behaves when Redis fails:
 * the limiters never wait long on it, the outage and the recovery are logged once each.
 */
import { Redis } from 'ioredis';
import { redactUrl } from '../config.js';
import type { Logger } from '../logger.js';

/** How long one rate-limit command may wait on Redis before the count is made in memory. */
const COMMAND_TIMEOUT_MS = 1000;

export class SharedRedis {
  readonly client: Redis;
  private down = false;

  constructor(
    private readonly url: string,
    private readonly logger: Logger,
  ) {
    // Commands are not queued while disconnected: they fail at once and the limiters count in
    // memory (rate-limiter-flexible's insurance limiter) rather than hold the request.
    this.client = new Redis(url, { enableOfflineQueue: false, maxRetriesPerRequest: 1, commandTimeout: COMMAND_TIMEOUT_MS });
    this.client.on('error', (error: Error) => this.markDown(`is unreachable (${error.message})`));
    this.client.on('ready', () => {
      if (!this.down) return;
      this.down = false;
      this.logger.info(`Redis at ${redactUrl(this.url)} is reachable again; rate limits are shared again`);
    });
  }

  /**
   * A limiter had to count in memory. If the connection still looks ready, Redis is up but failing
   * its commands, most often timing out because it stopped answering: drop the connection, so that
   * until Redis passes ioredis's ready check again every limiter counts in memory at once instead
   * of each waiting out a timeout.
   */
  fellBack(): void {
    if (this.client.status !== 'ready') return;
    this.markDown('is not answering');
    this.client.disconnect(true);
  }

  close(): void {
    this.client.disconnect();
  }

  private markDown(what: string): void {
    if (this.down) return;
    this.down = true;
    this.logger.error(`Redis at ${redactUrl(this.url)} ${what}; rate limits are counted per instance until it is back`);
  }
}
