/**
 * The two reads of every request in an organization, with two instances on one database (CONTRACT
 * §20.2): b holds an organization and a user's memberships, reading nothing but the change feed
 * once per interval, and a change made on a (a rename, a deletion, a membership added, changed or
 * removed) shows on b within that interval, dropping only what it names. b's feed clock is held:
 * the interval passes when the test says so. Statements counted.
 */
import { expect } from 'chai';
import type { TestApp } from '../helpers/app.js';
import { temporaryDatabase } from '../helpers/app.js';
import { holdFeedClock, type FeedClock } from '../helpers/feed-clock.js';
import { onStatement } from '../helpers/orm.js';
import { createPostgresDatabase, describePostgres } from '../helpers/services.js';
import { newUser, orgApp } from './org-app.js';

function instancesSuite(database: () => Promise<{ url: string; drop: () => Promise<void> }>) {
  let a: TestApp;
  let b: TestApp;
  let drop: () => Promise<void>;
  let clock: FeedClock;
  const statementsOnB: string[] = [];

  before(async () => {
    const made = await database();
    drop = made.drop;
    a = await orgApp({ SERVICE_AUTH_DATABASE_URL: made.url });
    b = await orgApp({ SERVICE_AUTH_DATABASE_URL: made.url });
    clock = holdFeedClock(b);
    await onStatement(await b.parts.storage.em(), (sql) => void statementsOnB.push(sql));
  });
  after(async () => {
    await a?.auth.close();
    await b?.auth.close();
    await drop?.();
  });

  /** What b reads while `work` runs. */
  async function readOnB(work: () => Promise<unknown>): Promise<string[]> {
    statementsOnB.length = 0;
    await work();
    return [...statementsOnB];
  }

  /**
   * Makes b hold what `reads` read: read, let the interval pass (the feed then names what the set-up
   * on a changed, dropping it), and read again.
   */
  async function holdOnB(reads: () => Promise<unknown>): Promise<void> {
    await reads();
    clock.passInterval();
    await reads();
  }

  async function orgOnA(name: string) {
    const owner = await newUser(a, 'owner');
    return { owner, org: await a.auth.orgs.create({ name, owner: owner.id }) };
  }

  it('reads an organization and a membership once, then nothing but the feed once per interval', async () => {
    const { owner, org } = await orgOnA('Held');
    await holdOnB(() =>
      Promise.all([b.auth.orgs.find(org.slug), b.auth.orgs.find(org.id), b.auth.orgs.membership(org.id, owner.id)]),
    );
    clock.passInterval();
    const read = await readOnB(async () => {
      for (let i = 0; i < 5; i++) {
        expect(await b.auth.orgs.find(org.slug)).to.deep.equal(org);
        expect(await b.auth.orgs.find(org.id)).to.deep.equal(org);
        expect(await b.auth.orgs.membership(org.id, owner.id)).to.deep.include({ roles: ['owner'] });
      }
    });
    expect(read, 'one read of the feed for 15 reads').to.have.length(1);
    expect(read[0]).to.match(/service_auth_changes/);
  });

  it('shows a rename made elsewhere within the interval, reading that organization again, and no membership or user', async () => {
    const { owner, org } = await orgOnA('Before');
    const other = (await orgOnA('Bystander')).org;
    const hold = () =>
      Promise.all([
        ...[org.id, org.slug, other.id].map((ref) => b.auth.orgs.find(ref)),
        b.auth.orgs.membership(org.id, owner.id),
        b.parts.users.cached(owner.id),
      ]);
    await holdOnB(hold);
    await a.auth.orgs.rename(org.id, 'After');
    clock.passInterval();
    const read = await readOnB(async () => {
      expect(await b.auth.orgs.find(org.slug)).to.include({ name: 'After' });
      expect(await b.auth.orgs.find(org.id)).to.include({ name: 'After' });
      expect(await b.auth.orgs.find(other.id)).to.deep.equal(other);
      expect(await b.auth.orgs.membership(org.id, owner.id)).to.deep.include({ roles: ['owner'] });
      expect(await b.parts.users.cached(owner.id)).to.include({ email: owner.email });
    });
    expect(
      read.filter((sql) => /service_auth_orgs/.test(sql)),
      'the renamed one, by slug and by id',
    ).to.have.length(2);
    expect(
      read.filter((sql) => /service_auth_(memberships|users)/.test(sql)),
      'no membership, no user: nobody’s credentials',
    ).to.deep.equal([]);
  });

  it('finds neither a deleted organization nor its memberships within the interval', async () => {
    const { owner, org } = await orgOnA('Gone Soon');
    await b.auth.orgs.find(org.slug);
    expect(await b.auth.orgs.membership(org.id, owner.id)).to.not.equal(null);
    await a.auth.orgs.delete(org.id);
    clock.passInterval();
    expect(await b.auth.orgs.find(org.slug)).to.equal(null);
    expect(await b.auth.orgs.find(org.id)).to.equal(null);
    expect(await b.auth.orgs.membership(org.id, owner.id)).to.equal(null);
  });

  it('finds an organization created elsewhere within the interval, though it held that none had its slug', async () => {
    await holdOnB(() => b.auth.orgs.find('newcomer'));
    expect(await readOnB(() => b.auth.orgs.find('newcomer')), 'that none has it is held too').to.deep.equal([]);
    const owner = await newUser(a, 'owner');
    const org = await a.auth.orgs.create({ name: 'Newcomer', slug: 'newcomer', owner: owner.id });
    clock.passInterval();
    expect(await b.auth.orgs.find('newcomer')).to.deep.equal(org);
  });

  it('shows a membership added, changed and removed elsewhere within the interval, reading again only that user’s', async () => {
    const { owner, org } = await orgOnA('Changing');
    const bob = await newUser(a, 'bob');
    await holdOnB(() =>
      Promise.all([b.auth.orgs.membership(org.id, bob.id), b.auth.orgs.membership(org.id, owner.id)]),
    );
    expect(await b.auth.orgs.membership(org.id, bob.id)).to.equal(null);

    await a.auth.orgs.addMember(org.id, bob.id, ['member']);
    clock.passInterval();
    const read = await readOnB(async () => {
      expect(await b.auth.orgs.membership(org.id, bob.id)).to.deep.include({ roles: ['member'] });
      expect(await b.auth.orgs.membership(org.id, owner.id)).to.deep.include({ roles: ['owner'] });
    });
    expect(
      read.filter((sql) => /service_auth_memberships/.test(sql)),
      'bob’s memberships only',
    ).to.have.length(1);

    await a.auth.orgs.setMemberRoles(org.id, bob.id, ['admin', 'viewer']);
    clock.passInterval();
    expect(await b.auth.orgs.membership(org.id, bob.id)).to.deep.include({ roles: ['admin', 'viewer'] });

    await a.auth.orgs.removeMember(org.id, bob.id);
    clock.passInterval();
    expect(await b.auth.orgs.membership(org.id, bob.id)).to.equal(null);
  });
}

describe('organizations on two instances [SQLite]', () => {
  instancesSuite(async () => {
    const file = await temporaryDatabase();
    return { url: file.url, drop: file.remove };
  });
});

describePostgres('organizations on two instances', () => {
  instancesSuite(createPostgresDatabase);
});
