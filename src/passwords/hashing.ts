/**
 * Password hashing with argon2id at OWASP's parameters (19 MiB, 2 iterations, 1 lane), in the
 * self-describing PHC string format ("$argon2id$v=19$m=19456,p=1,t=2$salt$hash"). The argon2
 * binding runs every hash on libuv's thread pool, never on the event loop.
 */
import { randomBytes } from 'node:crypto';
import argon2 from 'argon2';
import { normalizePassword } from './rules.js';

export const ARGON2_OPTIONS = { type: argon2.argon2id, memoryCost: 19_456, timeCost: 2, parallelism: 1 } as const;
/**
 * argon2's smallest costs (1 MiB, 1 iteration), for test suites only (SERVICE_AUTH_INSECURE_FAST_HASHING,
 * refused in production): a hash then takes about a millisecond instead of forty. The work counted
 * (hashes, verifications, the dummy verification of an unknown address) stays the same.
 */
export const FAST_ARGON2_OPTIONS = { type: argon2.argon2id, memoryCost: 1024, timeCost: 1, parallelism: 1 } as const;

type Argon2Options = typeof ARGON2_OPTIONS | typeof FAST_ARGON2_OPTIONS;

export class PasswordHasher {
  /** How many hashes and verifications ran: tests count work instead of timing it. */
  readonly calls = { hash: 0, verify: 0 };
  private dummyHash: Promise<string> | undefined;

  constructor(private readonly options: Argon2Options = ARGON2_OPTIONS) {}

  async hash(password: string): Promise<string> {
    this.calls.hash++;
    return argon2.hash(normalizePassword(password), this.options);
  }

  async verify(hash: string, password: string): Promise<boolean> {
    this.calls.verify++;
    try {
      return await argon2.verify(hash, normalizePassword(password));
    } catch {
      // A malformed stored hash never matches.
      return false;
    }
  }

  /**
   * The same work as a real verification, for an account that does not exist: a login for an
   * unknown email must not answer faster than one with a wrong password.
   */
  async verifyNothing(password: string): Promise<false> {
    await this.verify(await this.dummy(), password);
    return false;
  }

  /** Made with weaker parameters (or another algorithm) than today's: rehash at the next login. */
  needsRehash(hash: string): boolean {
    try {
      return !hash.startsWith('$argon2id$') || argon2.needsRehash(hash, this.options);
    } catch {
      return true;
    }
  }

  /** Computes the dummy hash ahead of the first unknown-email login. */
  async warmUp(): Promise<void> {
    await this.dummy();
  }

  private dummy(): Promise<string> {
    this.dummyHash ??= argon2.hash(randomBytes(32).toString('base64'), this.options);
    return this.dummyHash;
  }
}
