/**
 * The single-use, expiring rows behind the SSO attempts and the WebAuthn challenges: one contract,
 * run on SQLite and on PostgreSQL, through both of the tables that use it.
 */
import type { EntityName } from '@mikro-orm/core';
import { expect } from 'chai';
import { setTimeout as sleep } from 'node:timers/promises';
import { SsoAttempt, WebauthnChallenge } from '../../src/storage/entities/index.js';
import { SingleUseRows } from '../../src/storage/single-use-rows.js';
import { Storage } from '../../src/storage/storage.js';
import { createPostgresDatabase, describePostgres } from '../helpers/services.js';

function singleUseContract(open: () => Promise<{ url: string; drop: () => Promise<void> }>): void {
  let storage: Storage;
  let drop: () => Promise<void>;

  beforeEach(async () => {
    const database = await open();
    drop = database.drop;
    storage = new Storage(database.url, { migrate: true });
    await storage.ready;
  });

  afterEach(async () => {
    await storage.close();
    await drop();
  });

  const challenges = (ttlMs = 60_000): SingleUseRows<WebauthnChallenge> =>
    new SingleUseRows(storage, { entity: WebauthnChallenge, ttlMs });

  async function rowsIn<Row extends object>(table: EntityName<Row>): Promise<number> {
    return (await storage.em()).fork().count(table, {});
  }

  it('hands a kept row to the first taker only', async () => {
    await challenges().keep({ challenge: 'c1', purpose: 'login', userId: null });
    const first = await challenges().take({ challenge: 'c1', purpose: 'login', userId: null });
    expect(first).to.include({ challenge: 'c1', purpose: 'login' });
    expect(await challenges().take({ challenge: 'c1', purpose: 'login', userId: null })).to.equal(null);
    expect(await rowsIn(WebauthnChallenge)).to.equal(0);
  });

  it('of takers at once, exactly one gets the row', async () => {
    await challenges().keep({ challenge: 'c2', purpose: 'register', userId: 7 });
    const where = { challenge: 'c2', purpose: 'register', userId: 7 };
    const taken = await Promise.all(Array.from({ length: 5 }, () => challenges().take(where)));
    expect(taken.filter((row) => row !== null)).to.have.length(1);
  });

  it('leaves a row that a taker does not match (another purpose or user) for the one it is for', async () => {
    await challenges().keep({ challenge: 'c3', purpose: 'second', userId: 7 });
    expect(await challenges().take({ challenge: 'c3', purpose: 'login', userId: null })).to.equal(null);
    expect(await challenges().take({ challenge: 'c3', purpose: 'second', userId: 8 })).to.equal(null);
    expect(await challenges().take({ challenge: 'c3', purpose: 'second', userId: 7 })).to.not.equal(null);
  });

  it('refuses an expired row, and removes it', async () => {
    await challenges(30).keep({ challenge: 'c4', purpose: 'login', userId: null });
    await sleep(60);
    expect(await challenges().take({ challenge: 'c4', purpose: 'login', userId: null })).to.equal(null);
    expect(await rowsIn(WebauthnChallenge)).to.equal(0);
  });

  it('prunes the expired rows when it keeps one, and only those', async () => {
    await challenges(30).keep({ challenge: 'old', purpose: 'login', userId: null });
    await challenges().keep({ challenge: 'live', purpose: 'login', userId: null });
    await sleep(60);
    await challenges().keep({ challenge: 'new', purpose: 'login', userId: null });
    const left = await (await storage.em()).fork().find(WebauthnChallenge, {}, { orderBy: { challenge: 'asc' } });
    expect(left.map((row) => row.challenge)).to.deep.equal(['live', 'new']);
  });

  it('serves the SSO attempts table the same way', async () => {
    const attempts = (ttlMs = 60_000): SingleUseRows<SsoAttempt> =>
      new SingleUseRows(storage, { entity: SsoAttempt, ttlMs });
    const attempt = { provider: 'p', state: 's', nonce: null, codeVerifier: 'v', next: null, linkUserId: null };
    await attempts().keep({ idHash: 'a'.repeat(64), ...attempt });
    await attempts(30).keep({ idHash: 'b'.repeat(64), ...attempt });
    await sleep(60);
    expect(await attempts().take({ idHash: 'b'.repeat(64) })).to.equal(null);
    expect(await attempts().take({ idHash: 'a'.repeat(64) })).to.include({ provider: 'p', state: 's' });
    expect(await attempts().take({ idHash: 'a'.repeat(64) })).to.equal(null);
    expect(await rowsIn(SsoAttempt)).to.equal(0);
  });
}

describe('single-use expiring rows [SQLite]', () => {
  singleUseContract(async () => ({ url: 'sqlite::memory:', drop: async () => undefined }));
});

describePostgres('single-use expiring rows', () => {
  singleUseContract(createPostgresDatabase);
});
