/**
 * Argon2 with nothing to build: Node's own `crypto.argon2` (Node 24.7 and later), or, on a Node
 * without it (20, 22), the `argon2` package, an optional peer dependency that such an application
 * installs. Both read and write the same PHC string ("$argon2id$v=19$m=19456,p=1,t=2$salt$hash",
 * base64 without padding), so a hash written by either verifies with the other: an application
 * moving to Node 24 keeps its users' passwords.
 */
import * as crypto from 'node:crypto';
import { promisify } from 'node:util';

export type Argon2Type = 'argon2d' | 'argon2i' | 'argon2id';

/** The costs a hash is made with: memory in KiB, passes (iterations), lanes. */
export interface Argon2Costs {
  type: Argon2Type;
  memoryCost: number;
  timeCost: number;
  parallelism: number;
}

/** What hashes and verifies: Node's crypto.argon2 or the argon2 package. */
export interface Argon2Backend {
  readonly name: 'node:crypto' | 'argon2';
  hash(password: string, costs: Argon2Costs): Promise<string>;
  /** False for a wrong password; throws for a string that is no Argon2 hash it can check. */
  verify(encoded: string, password: string): Promise<boolean>;
}

/** A PHC string's parts. */
export interface Argon2Hash {
  type: Argon2Type;
  version: number;
  memoryCost: number;
  timeCost: number;
  parallelism: number;
  associatedData: Buffer;
  salt: Buffer;
  hash: Buffer;
}

const SALT_BYTES = 16;
const HASH_BYTES = 32;
const PHC =
  /^\$(argon2(?:d|i|id))(?:\$v=(\d+))?\$((?:[a-z]+=[A-Za-z0-9+/.-]*,?)+)\$([A-Za-z0-9+/]+)\$([A-Za-z0-9+/]+)$/;

const base64 = (bytes: Buffer) => bytes.toString('base64').replace(/=+$/, '');

/** The PHC string of a hash, in the argon2 package's own order of parameters (m, p, t). */
export function encodeArgon2(parts: Argon2Hash): string {
  const data = parts.associatedData.length > 0 ? `,data=${base64(parts.associatedData)}` : '';
  const params = `m=${parts.memoryCost},p=${parts.parallelism},t=${parts.timeCost}${data}`;
  return `$${parts.type}$v=${parts.version}$${params}$${base64(parts.salt)}$${base64(parts.hash)}`;
}

/** A PHC string's parts, parameters in any order; throws for anything else. */
export function decodeArgon2(encoded: string): Argon2Hash {
  const match = PHC.exec(encoded);
  if (!match) throw new Error('not an Argon2 PHC string');
  const [, type, version, params, salt, hash] = match;
  const values = new Map(params!.split(',').map((pair) => pair.split('=') as [string, string]));
  const number = (key: string) => {
    const value = values.get(key);
    if (value === undefined || !/^\d+$/.test(value)) throw new Error(`an Argon2 PHC string without ${key}`);
    return Number(value);
  };
  return {
    type: type as Argon2Type,
    // The argon2 package reads a string without v= as version 0x10, Argon2's first.
    version: version === undefined ? 0x10 : Number(version),
    memoryCost: number('m'),
    timeCost: number('t'),
    parallelism: number('p'),
    associatedData: Buffer.from(values.get('data') ?? '', 'base64'),
    salt: Buffer.from(salt!, 'base64'),
    hash: Buffer.from(hash!, 'base64'),
  };
}

interface NodeArgon2Parameters {
  message: Buffer;
  nonce: Buffer;
  parallelism: number;
  tagLength: number;
  memory: number;
  passes: number;
  associatedData?: Buffer;
}
type NodeArgon2 = (
  algorithm: Argon2Type,
  parameters: NodeArgon2Parameters,
  callback: (error: Error | null, derivedKey: Buffer) => void,
) => void;

/** Node's crypto.argon2 (24.7 and later; this project's @types/node is 20's, which has no type for it). */
const nodeArgon2Function = (crypto as unknown as { argon2?: NodeArgon2 }).argon2;

/** Node's own Argon2, on libuv's thread pool; undefined on a Node without it. */
export const nodeArgon2: Argon2Backend | undefined = nodeArgon2Function && nodeBackend(nodeArgon2Function);

function nodeBackend(argon2: NodeArgon2): Argon2Backend {
  const derive = promisify(argon2) as (algorithm: Argon2Type, parameters: NodeArgon2Parameters) => Promise<Buffer>;
  const run = (password: string, parts: Omit<Argon2Hash, 'hash' | 'version'>, tagLength: number) =>
    derive(parts.type, {
      message: Buffer.from(password),
      nonce: parts.salt,
      parallelism: parts.parallelism,
      tagLength,
      memory: parts.memoryCost,
      passes: parts.timeCost,
      ...(parts.associatedData.length > 0 && { associatedData: parts.associatedData }),
    });
  return {
    name: 'node:crypto',
    async hash(password, costs) {
      const salt = await promisify(crypto.randomBytes)(SALT_BYTES);
      const parts = { ...costs, salt, associatedData: Buffer.alloc(0) };
      return encodeArgon2({ ...parts, version: 0x13, hash: await run(password, parts, HASH_BYTES) });
    },
    async verify(encoded, password) {
      const parts = decodeArgon2(encoded);
      // Node computes version 0x13 only, the one the argon2 package has written since 2016.
      if (parts.version !== 0x13) throw new Error(`Argon2 version ${parts.version}: Node computes 19 only`);
      const actual = await run(password, parts, parts.hash.length);
      return crypto.timingSafeEqual(actual, parts.hash);
    },
  };
}

interface Argon2Package {
  hash(password: string, options: Record<string, unknown>): Promise<string>;
  verify(encoded: string, password: string): Promise<boolean>;
  argon2d: number;
  argon2i: number;
  argon2id: number;
}

/**
 * The argon2 package (a native module), loaded when asked for; a missing one is an error that says
 * what to install. `specifier`: the module to load, `argon2` but in a test of that error.
 */
export async function packageArgon2(specifier = 'argon2'): Promise<Argon2Backend> {
  let argon2: Argon2Package;
  try {
    // An optional peer dependency: a variable, so that TypeScript does not resolve it at build.
    const loaded = (await import(specifier)) as { default?: Argon2Package } & Argon2Package;
    argon2 = loaded.default ?? loaded;
  } catch (error) {
    // Only the package itself: a module missing inside it is another problem, reported as it is.
    const missing =
      (error as { code?: unknown }).code === 'ERR_MODULE_NOT_FOUND' &&
      String((error as Error).message).includes(`'${specifier}'`);
    if (!missing) throw error;
    throw new Argon2MissingError(error);
  }
  return {
    name: 'argon2',
    hash: (password, costs) => argon2.hash(password, { ...costs, type: argon2[costs.type] }),
    verify: (encoded, password) => argon2.verify(encoded, password),
  };
}

/** Start-up's error on a Node without crypto.argon2 when the argon2 package is not installed. */
export class Argon2MissingError extends Error {
  override readonly name = 'ConfigError';

  constructor(cause: unknown) {
    super(
      `password hashing needs Argon2: Node ${process.versions.node} has no crypto.argon2 (Node 24.7 and later has), ` +
        'and the argon2 package is not installed: npm install argon2 (or run on Node 24.7 or later)',
      { cause },
    );
  }
}

let chosen: Promise<Argon2Backend> | undefined;

/** Node's own Argon2 where Node has it, else the argon2 package: chosen once. */
export function defaultArgon2(): Promise<Argon2Backend> {
  chosen ??= nodeArgon2 ? Promise.resolve(nodeArgon2) : packageArgon2();
  // A failure is not kept: the next call looks again.
  chosen.catch(() => (chosen = undefined));
  return chosen;
}
