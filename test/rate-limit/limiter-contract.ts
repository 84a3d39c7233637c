/**
 * What every limiter store must do (rate-limiter-flexible's memory and Redis stores behind our
 * Limiter interface). Run by memory.test.ts and, against the real Redis, redis.test.ts.
 */
import { expect } from 'chai';
import { randomBytes } from 'node:crypto';
import type { Limiter } from '../../src/rate-limit/limiter.js';

export function limiterContract(make: (name: string, rate: string) => Limiter): void {
  const fresh = (rate: string) => make(`contract-${randomBytes(4).toString('hex')}`, rate);

  it('allows the rate and refuses the next hit in the window', async () => {
    const limiter = fresh('3 per minute');
    const states = [];
    for (let i = 0; i < 4; i++) states.push(await limiter.consume('client'));
    expect(states.map((s) => s.allowed)).to.deep.equal([true, true, true, false]);
    expect(states.map((s) => s.remaining)).to.deep.equal([2, 1, 0, 0]);
    for (const state of states) {
      expect(state.limit).to.equal(3);
      expect(state.resetSeconds).to.be.within(1, 60);
    }
  });

  it('counts keys separately', async () => {
    const limiter = fresh('1 per minute');
    expect((await limiter.consume('a')).allowed).to.equal(true);
    expect((await limiter.consume('a')).allowed).to.equal(false);
    expect((await limiter.consume('b')).allowed).to.equal(true);
  });

  it('peeks without counting', async () => {
    const limiter = fresh('2 per minute');
    expect(await limiter.peek('a')).to.include({ allowed: true, remaining: 2 });
    await limiter.consume('a');
    expect(await limiter.peek('a')).to.include({ allowed: true, remaining: 1 });
    await limiter.consume('a');
    expect(await limiter.peek('a')).to.include({ allowed: false, remaining: 0 });
    expect(await limiter.peek('a')).to.include({ allowed: false, remaining: 0 });
  });

  it('forgets a key on reset', async () => {
    const limiter = fresh('1 per minute');
    await limiter.consume('a');
    await limiter.reset('a');
    expect((await limiter.consume('a')).allowed).to.equal(true);
  });

  it('gives back a hit on refund', async () => {
    const limiter = fresh('2 per minute');
    await limiter.consume('a');
    await limiter.consume('a');
    await limiter.refund('a');
    expect(await limiter.peek('a')).to.include({ allowed: true, remaining: 1 });
  });

  it('starts a new window when the old one ends', async () => {
    const limiter = fresh('1 per second');
    await limiter.consume('a');
    expect((await limiter.consume('a')).allowed).to.equal(false);
    await new Promise((resolve) => setTimeout(resolve, 1100));
    expect((await limiter.consume('a')).allowed).to.equal(true);
  });
}
