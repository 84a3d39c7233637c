/**
 * Counting requests per key in fixed windows, with rate-limiter-flexible's stores: memory by
 * default, Redis (with an in-memory insurance limiter) when SERVICE_AUTH_REDIS_URL is set. The
 * rest of the package sees only the small Limiter interface. The library (37 modules: its entry
 * loads every store it supports) loads with the first count, not with the package: an
 * application's own routes behind the guards count nothing.
 */
import type { RateLimiterAbstract, RateLimiterMemory, RateLimiterRes } from 'rate-limiter-flexible';
import type { Redis } from 'ioredis';
import type { Rate } from '../config/rates.js';
import { once } from '../once.js';

export interface LimitState {
  /** False once the key has used up the window's points. */
  allowed: boolean;
  limit: number;
  remaining: number;
  /** Seconds until the window resets. */
  resetSeconds: number;
}

export interface Limiter {
  readonly rate: Rate;
  /** Counts one hit against `key`. */
  consume(key: string): Promise<LimitState>;
  /** Whether `key` may go on, without counting. */
  peek(key: string): Promise<LimitState>;
  /** Forgets `key` (a successful login clears its failures). */
  reset(key: string): Promise<void>;
  /** Gives back one hit counted ahead of time that turned out not to count. */
  refund(key: string): Promise<void>;
}

export interface LimiterOptions {
  /** Distinguishes the counters of one limiter from another's in a shared store. */
  name: string;
  rate: Rate;
  redis?: Redis | undefined;
  /** Called each time a count is made in memory because Redis failed or is not connected. */
  onRedisFailure?: () => void;
}

type Flexible = typeof import('rate-limiter-flexible');
/** The library, loaded once; a failed load (a module missing) fails that count, and the next tries again. */
const flexible: () => Promise<Flexible> = once(() => import('rate-limiter-flexible'));

export function createLimiter({ name, rate, redis, onRedisFailure = () => undefined }: LimiterOptions): Limiter {
  const options = { keyPrefix: `service-auth:${name}`, points: rate.points, duration: rate.durationSeconds };
  return new StoreLimiter(rate, async () => {
    const { RateLimiterMemory, RateLimiterRedis, RateLimiterRes } = await flexible();
    const store = redis
      ? new RateLimiterRedis({
          ...options,
          storeClient: redis,
          // If Redis is unreachable, count in memory on this instance and keep serving.
          insuranceLimiter: new (insuranceLimiter(RateLimiterMemory))(options, onRedisFailure),
          rejectIfRedisNotReady: true,
        })
      : new RateLimiterMemory(options);
    return { store, RateLimiterRes };
  });
}

/**
 * rate-limiter-flexible's in-memory insurance, which the Redis store turns to when a command
 * fails: it says so, so that a Redis that stopped answering can be noticed and logged (ioredis
 * reports a refused connection, not a command that timed out). Only the operations this module
 * uses are watched. (A class made once the library is loaded: it extends the library's.)
 */
function insuranceLimiter(Memory: typeof RateLimiterMemory) {
  return class InsuranceLimiter extends Memory {
    constructor(
      options: ConstructorParameters<typeof RateLimiterMemory>[0],
      private readonly onUse: () => void,
    ) {
      super(options);
    }

    override consume(...args: Parameters<RateLimiterMemory['consume']>) {
      this.onUse();
      return super.consume(...args);
    }

    override get(...args: Parameters<RateLimiterMemory['get']>) {
      this.onUse();
      return super.get(...args);
    }

    override delete(...args: Parameters<RateLimiterMemory['delete']>) {
      this.onUse();
      return super.delete(...args);
    }

    override reward(...args: Parameters<RateLimiterMemory['reward']>) {
      this.onUse();
      return super.reward(...args);
    }
  };
}

interface Store {
  store: RateLimiterAbstract;
  /** What the store rejects with when the points are used up. */
  RateLimiterRes: Flexible['RateLimiterRes'];
}

class StoreLimiter implements Limiter {
  /** The store once made: a count then waits for no promise of ours (one per request is a third of the limiter's cost). */
  private ready: Store | undefined;
  /** The store, made with the first count. */
  private readonly store: () => Promise<Store>;

  constructor(
    readonly rate: Rate,
    make: () => Promise<Store>,
  ) {
    this.store = once(() => make().then((made) => (this.ready = made)));
  }

  async consume(key: string): Promise<LimitState> {
    const { store, RateLimiterRes } = this.ready ?? (await this.store());
    try {
      return this.state(await store.consume(key), true);
    } catch (outcome) {
      // rate-limiter-flexible rejects with the RateLimiterRes itself when the points are used up.
      if (outcome instanceof RateLimiterRes) return this.state(outcome, false);
      throw outcome;
    }
  }

  async peek(key: string): Promise<LimitState> {
    const current = await (await this.store()).store.get(key);
    if (!current)
      return {
        allowed: true,
        limit: this.rate.points,
        remaining: this.rate.points,
        resetSeconds: this.rate.durationSeconds,
      };
    return this.state(current, current.consumedPoints < this.rate.points);
  }

  async reset(key: string): Promise<void> {
    await (await this.store()).store.delete(key);
  }

  async refund(key: string): Promise<void> {
    await (await this.store()).store.reward(key, 1);
  }

  private state(result: RateLimiterRes, allowed: boolean): LimitState {
    return {
      allowed,
      limit: this.rate.points,
      remaining: Math.max(0, this.rate.points - result.consumedPoints),
      resetSeconds: Math.max(1, Math.ceil(result.msBeforeNext / 1000)),
    };
  }
}
