/**
 * `auth.users.search`, the admin console's list: a literal, case-insensitive part of the address
 * (LIKE's `%` and `_`, and the escape character itself, match only themselves), a page at a
 * time, oldest first; on SQLite and on PostgreSQL, whose LIKE differ.
 */
import { expect } from 'chai';
import { User } from '../../src/storage/entities/index.js';
import { createTestApp, type TestApp } from '../helpers/app.js';
import { createPostgresDatabase, describePostgres } from '../helpers/services.js';

function searchSuite(settings: () => Promise<{ url: string; drop(): Promise<void> }>): void {
  let t: TestApp;
  let drop: () => Promise<void>;
  before(async () => {
    const database = await settings();
    drop = database.drop;
    t = await createTestApp({ SERVICE_AUTH_DATABASE_URL: database.url, SERVICE_AUTH_RATE_LIMIT_ENABLED: false });
    // Rows as stored (addresses in lower case), without hashing a password for each.
    const em = (await t.parts.storage.em()).fork();
    for (const email of [
      'a_b@example.com',
      'axb@example.com',
      '100%@example.com',
      '100x@example.com',
      'bang!@example.com',
      'bangx@example.com',
    ]) {
      em.create(User, { email, passwordHash: 'not a hash' });
    }
    await em.flush();
  });
  after(async () => {
    await t?.auth.close();
    await drop?.();
  });

  const emails = async (email: string | undefined, offset = 0, limit = 10) =>
    (await t.auth.users.search({ email, offset, limit })).map((user) => user.email);

  it('matches a literal part of the address, in any case', async () => {
    expect(await emails('A_B')).to.deep.equal(['a_b@example.com']);
    expect(await emails('0%')).to.deep.equal(['100%@example.com']);
    expect(await emails('g!')).to.deep.equal(['bang!@example.com']);
    expect(await emails('  BANG ')).to.deep.equal(['bang!@example.com', 'bangx@example.com']);
    expect(await emails('nobody')).to.deep.equal([]);
  });

  it('pages through everyone, oldest first', async () => {
    const all = await emails(undefined);
    expect(all).to.have.length(6);
    expect([...(await emails(undefined, 0, 4)), ...(await emails(undefined, 4, 4))]).to.deep.equal(all);
    expect(await emails('example', 5, 4)).to.deep.equal(all.slice(5));
  });
}

describe('searching users (SQLite)', () =>
  searchSuite(async () => ({ url: 'sqlite::memory:', drop: async () => undefined })));
describePostgres('searching users', () => searchSuite(createPostgresDatabase));
