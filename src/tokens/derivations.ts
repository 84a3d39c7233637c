/**
 * PBKDF2 derivations, bounded and fairly shared. Each takes ~130 ms of a CPU core at 600,000
 * iterations; they run on libuv's thread pool (never the event loop), at most `concurrency` at
 * once so that the pool's other users (SQLite, fs, argon2) and the rest of the machine keep going,
 * with a bounded queue: past it, a verification is refused as busy at once.
 *
 * Who waits first. A forged token (well-formed, for a real id, wrong secret) can only be refused
 * after a derivation, so a flood of them from a few addresses would keep the queue full, and a real
 * token's first use would wait behind it, or be refused. Instead each derivation is ranked by its
 * client's standing: how many of its derivations failed recently (a forgery, or a mistyped token),
 * plus how many it already has waiting or running. The lowest rank goes first (in order of arrival
 * among equals). When the queue is full, a newcomer with a better rank takes the place of the
 * worst-ranked waiting derivation, which is refused instead; otherwise the newcomer is. A real
 * user's first use, from an address with no failures, thus waits for the derivations running, not
 * for the flood. (A forger's first derivations from a fresh address rank like a real user's: a
 * client is known as a forger only once one of its derivations failed.)
 *
 * No rank is kept per token id: forgeries name the real token's id, so anything that held an id
 * back would hold its owner back too.
 */
import { availableParallelism } from 'node:os';
import { LRUCache } from 'lru-cache';
import { AuthError } from '../errors.js';
import { derive } from './hashing.js';

/** How long a failed derivation counts against its client. */
export const FAILURE_MEMORY_MS = 15 * 60_000;
/** Clients whose failures are remembered; past it, the least recently failed are forgotten. */
const REMEMBERED_CLIENTS = 10_000;

/** The queue is full: a 503 that asks the client to come back in a second. */
export class DerivationsBusyError extends AuthError {
  override name = 'DerivationsBusyError';

  constructor() {
    super('unavailable', 'Too many token verifications are in progress; retry shortly', undefined, {
      'Retry-After': '1',
    });
  }
}

interface Waiting {
  rank: number;
  client: string | undefined;
  start(): void;
  refuse(): void;
}

export class DerivationPool {
  /** Derivations started by this process: tests count work instead of timing it. */
  derivations = 0;
  private running = 0;
  /** By rank, then arrival. */
  private readonly waiting: Waiting[] = [];
  /** Derivations waiting or running, per client. */
  private readonly active = new Map<string, number>();
  private readonly failures = new LRUCache<string, number>({ max: REMEMBERED_CLIENTS, ttl: FAILURE_MEMORY_MS });

  constructor(
    private readonly concurrency = Math.max(1, Math.min(2, availableParallelism() - 1)),
    private readonly maxQueue = 32,
  ) {}

  /**
   * Derives, when the client's turn comes. `client` is the requester's address (clientKey); work
   * on no client's behalf (creating a token, for a signed-in user) ranks first.
   */
  derive(token: string, salt: string, iterations: number, client?: string): Promise<string> {
    const rank = client === undefined ? 0 : (this.failures.get(client) ?? 0) + (this.active.get(client) ?? 0);
    return new Promise((resolve, reject) => {
      const job: Waiting = {
        rank,
        client,
        start: () => {
          this.running++;
          this.derivations++;
          derive(token, salt, iterations)
            .then(resolve, reject)
            .finally(() => {
              this.running--;
              this.release(client);
              this.next();
            });
        },
        refuse: () => {
          this.release(client);
          reject(new DerivationsBusyError());
        },
      };
      this.hold(client);
      if (this.running < this.concurrency) return job.start();
      if (this.waiting.length >= this.maxQueue) {
        const worst = this.waiting.at(-1);
        if (!worst || worst.rank <= rank) return job.refuse();
        this.waiting.pop();
        worst.refuse();
      }
      const after = this.waiting.findLastIndex((other) => other.rank <= rank);
      this.waiting.splice(after + 1, 0, job);
    });
  }

  /** Notes that a derivation for this client did not match: its next ones rank lower. */
  failed(client: string): void {
    this.failures.set(client, (this.failures.get(client) ?? 0) + 1);
  }

  /** Refuses the derivations still waiting: a closing process does not spend seconds of CPU on them. */
  close(): void {
    for (const job of this.waiting.splice(0)) job.refuse();
  }

  /** Derivations waiting for their turn. */
  get queued(): number {
    return this.waiting.length;
  }

  private next(): void {
    while (this.running < this.concurrency && this.waiting.length > 0) this.waiting.shift()!.start();
  }

  private hold(client: string | undefined): void {
    if (client !== undefined) this.active.set(client, (this.active.get(client) ?? 0) + 1);
  }

  private release(client: string | undefined): void {
    if (client === undefined) return;
    const left = (this.active.get(client) ?? 1) - 1;
    if (left > 0) this.active.set(client, left);
    else this.active.delete(client);
  }
}
