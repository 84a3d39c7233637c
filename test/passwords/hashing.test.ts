import { expect } from 'chai';
import argon2 from 'argon2';
import { FAST_ARGON2_OPTIONS, PasswordHasher } from '../../src/passwords/hashing.js';

describe('password hashing', () => {
  const hasher = new PasswordHasher();

  it('stores argon2id with OWASP parameters in a self-describing string', async () => {
    const hash = await hasher.hash('Correct-Horse-9');
    expect(hash).to.match(/^\$argon2id\$v=19\$m=19456,p=1,t=2\$[A-Za-z0-9+/]+\$[A-Za-z0-9+/]+$/);
    expect(hash).not.to.contain('Correct-Horse-9');
  });

  it('salts every hash', async () => {
    expect(await hasher.hash('Correct-Horse-9')).not.to.equal(await hasher.hash('Correct-Horse-9'));
  });

  it('verifies the password and nothing else', async () => {
    const hash = await hasher.hash('Correct-Horse-9');
    expect(await hasher.verify(hash, 'Correct-Horse-9')).to.equal(true);
    expect(await hasher.verify(hash, 'correct-horse-9')).to.equal(false);
    expect(await hasher.verify('not a hash', 'Correct-Horse-9')).to.equal(false);
  });

  it('hashes the NFC form, so composed and decomposed spellings are the same password', async () => {
    const hash = await hasher.hash('Caf\u00e9-Password-1');
    expect(await hasher.verify(hash, 'Cafe\u0301-Password-1')).to.equal(true);
  });

  it('asks for a rehash of hashes made with weaker parameters', async () => {
    const weak = await argon2.hash('Correct-Horse-9', {
      type: argon2.argon2id,
      memoryCost: 4096,
      timeCost: 1,
      parallelism: 1,
    });
    expect(hasher.needsRehash(weak)).to.equal(true);
    expect(hasher.needsRehash(await hasher.hash('Correct-Horse-9'))).to.equal(false);
    expect(hasher.needsRehash('$2b$10$somebcrypthash')).to.equal(true);
  });

  it('at test costs (SERVICE_AUTH_INSECURE_FAST_HASHING) hashes at argon2 smallest costs, which the OWASP costs rehash', async () => {
    const fast = new PasswordHasher(FAST_ARGON2_OPTIONS);
    const hash = await fast.hash('Correct-Horse-9');
    expect(hash).to.match(/^\$argon2id\$v=19\$m=1024,p=1,t=1\$/);
    expect(fast.needsRehash(hash)).to.equal(false);
    expect(await hasher.verify(hash, 'Correct-Horse-9')).to.equal(true);
    expect(hasher.needsRehash(hash)).to.equal(true);
  });

  it('does the same hashing work for an account that does not exist', async () => {
    const counting = new PasswordHasher();
    const hash = await counting.hash('Correct-Horse-9');
    const before = { ...counting.calls };
    await counting.verify(hash, 'wrong');
    const afterReal = { ...counting.calls };
    expect(await counting.verifyNothing('wrong')).to.equal(false);
    expect(counting.calls.verify - afterReal.verify).to.equal(afterReal.verify - before.verify);
  });

  it('keeps the event loop free while hashing', async () => {
    // A timer scheduled now fires before a hash completes only if the hash runs off the loop.
    let ticked = false;
    const timer = new Promise<void>((resolve) =>
      setImmediate(() => {
        ticked = true;
        resolve();
      }),
    );
    const hashing = hasher.hash('Correct-Horse-9').then(() => ticked);
    await timer;
    expect(await hashing).to.equal(true);
  });
});
