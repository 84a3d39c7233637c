/**
 * The one Redis connection an instance's limiters (and, with SERVICE_AUTH_SECRET, its shared
 * verifications) use, and how it behaves when Redis fails: nothing waits long on it, the outage
 * and the recovery are logged once each, saying what stops being shared.
 */
import { createRequire } from 'node:module';
import type { Redis } from 'ioredis';
import { redactUrl } from '../config/redact.js';
import type { LoggerHolder } from '../logger.js';

/** How long one rate-limit command may wait on Redis before the count is made in memory. */
const COMMAND_TIMEOUT_MS = 1000;

/**
 * ioredis is loaded when a Redis URL is configured, not with the package: it is a large CommonJS
 * package, and without Redis (a CLI command, a single instance) it would only slow the start.
 */
const require = createRequire(import.meta.url);

/** What an instance shares through Redis, for the outage's log lines. */
export interface SharedThings {
  rateLimits: boolean;
  verifiedTokens: boolean;
}

export class SharedRedis {
  readonly client: Redis;
  private down = false;

  constructor(
    private readonly url: string,
    keyPrefix: string,
    private readonly log: LoggerHolder,
    private readonly shares: SharedThings = { rateLimits: true, verifiedTokens: false },
  ) {
    // Commands are not queued while disconnected: they fail at once and the limiters count in
    // memory (rate-limiter-flexible's insurance limiter) rather than hold the request.
    // On disconnect, a socket that has not closed is destroyed at once (`disconnectTimeout`), rather
    // than after ioredis's default of two seconds, which would keep a closing process alive.
    // ioredis puts keyPrefix before every key, in the limiters' scripts too (SERVICE_AUTH_REDIS_PREFIX).
    const { Redis } = require('ioredis') as typeof import('ioredis');
    this.client = new Redis(url, {
      keyPrefix,
      enableOfflineQueue: false,
      maxRetriesPerRequest: 1,
      commandTimeout: COMMAND_TIMEOUT_MS,
      disconnectTimeout: 0,
    });
    this.client.on('error', (error: Error) => this.markDown(`is unreachable (${error.message})`));
    this.client.on('ready', () => {
      if (!this.down) return;
      this.down = false;
      const what = [this.shares.rateLimits && 'rate limits', this.shares.verifiedTokens && 'verified tokens']
        .filter(Boolean)
        .join(' and ');
      this.log.logger.info(`Redis at ${redactUrl(this.url)} is reachable again; ${what} are shared again`);
    });
  }

  /**
   * A limiter had to count in memory. While the connection still looks ready, that has one of two
   * causes. Its socket may have been closed by Redis (a crash, a restart) before ioredis has
   * handled the close: the connection is on its way down, ioredis reconnects by itself, and Redis
   * is reported unreachable. Or the socket is open and a command timed out: Redis is up but not
   * answering. Then the connection is dropped, so that until Redis passes ioredis's ready check
   * again every limiter counts in memory at once instead of each waiting out a timeout.
   */
  fellBack(): void {
    if (this.client.status !== 'ready') return;
    if (this.client.stream?.writable === false) {
      this.markDown('is unreachable (the connection closed)');
      return;
    }
    this.markDown('is not answering');
    this.client.disconnect(true);
  }

  /** Closes the connection without waiting for replies (a count lost at shutdown does not matter). */
  async close(): Promise<void> {
    this.client.disconnect();
    // ioredis destroys a socket that did not close on a timer (`disconnectTimeout` above): let it run.
    await new Promise((resolve) => setTimeout(resolve, 0));
  }

  private markDown(what: string): void {
    if (this.down) return;
    this.down = true;
    const meanwhile = [
      this.shares.rateLimits && 'rate limits are counted per instance',
      this.shares.verifiedTokens && 'each instance derives the tokens it has not verified itself',
    ].filter(Boolean);
    this.log.logger.error(`Redis at ${redactUrl(this.url)} ${what}; ${meanwhile.join(', and ')} until it is back`);
  }
}
