/**
 * PBKDF2 derivations, bounded. Each takes ~130 ms of a CPU core at 600,000 iterations; they run on
 * libuv's thread pool (never the event loop), at most `concurrency` at once so that the pool's
 * other users (SQLite, fs, argon2) and the rest of the machine keep going, with a bounded queue:
 * past it, a verification is refused as busy at once instead of waiting behind a flood of bogus
 * tokens.
 */
import { availableParallelism } from 'node:os';
import pLimit, { type LimitFunction } from 'p-limit';
import { AuthError } from '../errors.js';
import { derive } from './hashing.js';

/** The queue is full: a 503 that asks the client to come back in a second. */
export class DerivationsBusyError extends AuthError {
  override name = 'DerivationsBusyError';

  constructor() {
    super('unavailable', 'Too many token verifications are in progress; retry shortly', undefined, { 'Retry-After': '1' });
  }
}

export class DerivationPool {
  /** Derivations started by this process: tests count work instead of timing it. */
  derivations = 0;
  private readonly limit: LimitFunction;

  constructor(
    concurrency = Math.max(1, Math.min(2, availableParallelism() - 1)),
    private readonly maxQueue = 32,
  ) {
    this.limit = pLimit(concurrency);
  }

  derive(token: string, salt: string, iterations: number): Promise<string> {
    if (this.limit.pendingCount >= this.maxQueue) {
      return Promise.reject(new DerivationsBusyError());
    }
    return this.limit(() => {
      this.derivations++;
      return derive(token, salt, iterations);
    });
  }
}
