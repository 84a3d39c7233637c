/**
 * Password hashing with argon2id at OWASP's parameters (19 MiB, 2 iterations, 1 lane), in the
 * self-describing PHC string format ("$argon2id$v=19$m=19456,p=1,t=2$salt$hash"). Node's own
 * crypto.argon2 computes it where Node has it (24.7 and later), the argon2 package elsewhere
 * (./argon2.ts); either runs every hash on libuv's thread pool, never on the event loop.
 */
import { randomBytes } from 'node:crypto';
import { decodeArgon2, defaultArgon2, type Argon2Backend } from './argon2.js';
import { normalizePassword } from './rules.js';

export const ARGON2_OPTIONS = { type: 'argon2id', memoryCost: 19_456, timeCost: 2, parallelism: 1 } as const;
/**
 * argon2's smallest costs (1 MiB, 1 iteration), for test suites only (SERVICE_AUTH_INSECURE_FAST_HASHING,
 * refused in production): a hash then takes about a millisecond instead of forty. The work counted
 * (hashes, verifications, the dummy verification of an unknown address) stays the same.
 */
export const FAST_ARGON2_OPTIONS = { type: 'argon2id', memoryCost: 1024, timeCost: 1, parallelism: 1 } as const;

type Argon2Options = typeof ARGON2_OPTIONS | typeof FAST_ARGON2_OPTIONS;

export class PasswordHasher {
  /** How many hashes and verifications ran: tests count work instead of timing it. */
  readonly calls = { hash: 0, verify: 0 };
  private dummyHash: Promise<string> | undefined;

  /** `backend`: which Argon2 computes (tests compare the two); by default Node's own, else the argon2 package. */
  constructor(
    private readonly options: Argon2Options = ARGON2_OPTIONS,
    private readonly backend: () => Promise<Argon2Backend> = defaultArgon2,
  ) {}

  async hash(password: string): Promise<string> {
    this.calls.hash++;
    return (await this.backend()).hash(normalizePassword(password), this.options);
  }

  async verify(hash: string, password: string): Promise<boolean> {
    this.calls.verify++;
    const backend = await this.backend(); // a missing argon2 package is an error, not a wrong password
    try {
      return await backend.verify(hash, normalizePassword(password));
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
      const made = decodeArgon2(hash);
      return (
        made.type !== this.options.type ||
        made.version !== 0x13 ||
        made.memoryCost !== this.options.memoryCost ||
        made.timeCost !== this.options.timeCost ||
        made.parallelism !== this.options.parallelism
      );
    } catch {
      return true;
    }
  }

  /** Computes the dummy hash ahead of the first unknown-email login. */
  async warmUp(): Promise<void> {
    await this.dummy();
  }

  private dummy(): Promise<string> {
    this.dummyHash ??= this.backend().then((backend) => backend.hash(randomBytes(32).toString('base64'), this.options));
    // A failure (no Argon2 on this Node) is not kept: start-up reports it, and the next call tries again.
    this.dummyHash.catch(() => (this.dummyHash = undefined));
    return this.dummyHash;
  }
}
