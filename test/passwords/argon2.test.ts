/**
 * Node's own Argon2 (crypto.argon2, Node 24.7 and later) and the argon2 package agree: a hash
 * either writes verifies with the other, and a wrong password fails with both, so an application
 * that moves from Node 22 to 24 keeps its users' passwords, and back. Proved by property on a Node
 * that has both; the PHC codec and the missing-package error on any Node.
 */
import { expect } from 'chai';
import fc from 'fast-check';
import {
  Argon2MissingError,
  decodeArgon2,
  encodeArgon2,
  nodeArgon2,
  packageArgon2,
  type Argon2Backend,
  type Argon2Costs,
} from '../../src/passwords/argon2.js';
import { FAST_ARGON2_OPTIONS, PasswordHasher } from '../../src/passwords/hashing.js';

const WHY = `Node ${process.versions.node} has no crypto.argon2 (24.7 and later has): the argon2 package hashes alone`;

/** Costs small enough for a hundred runs: 8 to 64 KiB per lane, 1 to 3 passes, 1 or 2 lanes. */
const costs: fc.Arbitrary<Argon2Costs> = fc
  .record({
    type: fc.constantFrom('argon2id' as const, 'argon2i' as const, 'argon2d' as const),
    memoryCost: fc.integer({ min: 8, max: 64 }),
    timeCost: fc.integer({ min: 1, max: 3 }),
    parallelism: fc.integer({ min: 1, max: 2 }),
  })
  .map((each) => ({ ...each, memoryCost: each.memoryCost * each.parallelism }));
const passwords = fc.string({ unit: 'grapheme', minLength: 0, maxLength: 40 });

describe('Argon2: Node’s own and the argon2 package', () => {
  let argon2Package: Argon2Backend;
  before(async () => {
    argon2Package = await packageArgon2();
  });

  (nodeArgon2 ? it : it.skip)(
    nodeArgon2
      ? 'agree: a hash from either verifies with the other, a wrong password with neither'
      : `agree (runs on Node 24.7 and later: ${WHY})`,
    async function () {
      this.timeout(120_000);
      const node = nodeArgon2!;
      await fc.assert(
        fc.asyncProperty(costs, passwords, passwords, fc.boolean(), async (made, password, other, nodeWrites) => {
          fc.pre(other.normalize() !== password.normalize());
          const [writer, reader] = nodeWrites ? [node, argon2Package] : [argon2Package, node];
          const hash = await writer.hash(password, made);
          expect(decodeArgon2(hash)).to.include({ ...made, version: 19 });
          for (const backend of [writer, reader]) {
            expect(await backend.verify(hash, password), `${backend.name} verifies ${hash}`).to.equal(true);
            expect(await backend.verify(hash, other), `${backend.name} refuses another password`).to.equal(false);
          }
        }),
        { numRuns: 100 },
      );
    },
  );

  (nodeArgon2 ? it : it.skip)(
    nodeArgon2 ? 'write the same string for the same salt' : `write the same string (runs on Node 24.7+: ${WHY})`,
    async () => {
      // A hash the package wrote, its digest recomputed by Node from the same salt and costs.
      const written = await argon2Package.hash('Correct-Horse-9', FAST_ARGON2_OPTIONS);
      const parts = decodeArgon2(written);
      const node = nodeArgon2!;
      expect(await node.verify(written, 'Correct-Horse-9')).to.equal(true);
      expect(encodeArgon2(parts)).to.equal(written);
    },
  );

  it('reads and writes the PHC string as the argon2 package does: parameters in any order, base64 without padding', async () => {
    const written = await argon2Package.hash('Correct-Horse-9', FAST_ARGON2_OPTIONS);
    expect(written).to.match(/^\$argon2id\$v=19\$m=1024,p=1,t=1\$[A-Za-z0-9+/]{22}\$[A-Za-z0-9+/]{43}$/);
    const parts = decodeArgon2(written);
    expect(parts).to.include({ type: 'argon2id', version: 19, memoryCost: 1024, timeCost: 1, parallelism: 1 });
    expect(parts.salt).to.have.length(16);
    expect(parts.hash).to.have.length(32);
    expect(encodeArgon2(parts)).to.equal(written);
    const reordered = written.replace('m=1024,p=1,t=1', 't=1,m=1024,p=1');
    expect(decodeArgon2(reordered)).to.deep.equal(parts);
    for (const malformed of [
      '',
      'not a hash',
      '$2b$10$somebcrypthash',
      written.replace('m=1024,', ''),
      '$argon2id$v=19$m=1,p=1,t=1$$',
    ])
      expect(() => decodeArgon2(malformed), malformed).to.throw();
  });

  it('keeps the hasher’s answers on whichever computes: rehash for weaker costs, false for a malformed hash', async () => {
    for (const backend of [argon2Package, ...(nodeArgon2 ? [nodeArgon2] : [])]) {
      const hasher = new PasswordHasher(FAST_ARGON2_OPTIONS, async () => backend);
      const hash = await hasher.hash('Correct-Horse-9');
      expect(await hasher.verify(hash, 'Correct-Horse-9'), backend.name).to.equal(true);
      expect(await hasher.verify(hash.slice(0, -2), 'Correct-Horse-9'), backend.name).to.equal(false);
      expect(hasher.needsRehash(hash), backend.name).to.equal(false);
      expect(new PasswordHasher(undefined, async () => backend).needsRehash(hash), backend.name).to.equal(true);
      expect(hasher.calls).to.deep.equal({ hash: 1, verify: 2 });
    }
  });

  it('names `npm install argon2` when Node has no crypto.argon2 and the package is missing, at start-up (the dummy hash)', async () => {
    let failure: unknown;
    await packageArgon2('argon2-that-is-not-installed').catch((error: unknown) => (failure = error));
    expect(failure).to.be.instanceOf(Argon2MissingError);
    expect((failure as Error).message).to.contain('npm install argon2');
    expect((failure as Error).message).to.contain(`Node ${process.versions.node} has no crypto.argon2`);
    const hasher = new PasswordHasher(FAST_ARGON2_OPTIONS, () => packageArgon2('argon2-that-is-not-installed'));
    let warmUp: unknown;
    await hasher.warmUp().catch((error: unknown) => (warmUp = error));
    expect((warmUp as Error).message).to.contain('npm install argon2');
    // Not a wrong password: a login then fails loudly instead of refusing everyone.
    let verify: unknown;
    await hasher
      .verify('$argon2id$v=19$m=1024,p=1,t=1$c2FsdHNhbHRzYWx0$aGFzaA', 'x')
      .catch((e: unknown) => (verify = e));
    expect(verify).to.be.instanceOf(Argon2MissingError);
  });
});
