/**
 * `/forgot` must not tell by its timing whether an address has an account. Timing it would be
 * flaky and prove little; instead these tests count the work done before the answer is written:
 * none for a known address and none for an unknown one. Everything else (the lookup, the token,
 * the event, the mail) happens after the answer.
 */
import { expect } from 'chai';
import { rm } from 'node:fs/promises';
import request from 'supertest';
import { partsOf } from '../../src/instance-registry.js';
import { outboxMails, PASSWORD, temporaryDirectory } from '../helpers/app.js';
import { countingApp, type CountingApp } from '../helpers/statements.js';

interface Setup extends CountingApp {
  outbox: string;
}

async function setup(): Promise<Setup> {
  const outbox = await temporaryDirectory();
  return {
    ...(await countingApp({ SERVICE_AUTH_RATE_LIMIT_ENABLED: false, SERVICE_AUTH_MAIL_OUTBOX: outbox })),
    outbox,
  };
}

describe('POST /forgot reveals nothing by its timing', () => {
  let s: Setup;
  beforeEach(async () => {
    s = await setup();
    await s.auth.users.create({ email: 'ada@example.com', password: PASSWORD });
  });
  afterEach(async () => {
    await s.auth.close();
    await rm(s.outbox, { recursive: true, force: true });
  });

  it('answers a known and an unknown address after the same work: no statement at all before the answer', async () => {
    const before = s.statements();
    await request(s.app).post('/service-auth/forgot').send({ email: 'ada@example.com' }).expect(202);
    const known = s.statementsAtAnswer.at(-1)! - before;
    await s.auth.close(); // waits for the work after the answer, so the next count starts clean
    s = await setup();
    await s.auth.users.create({ email: 'ada@example.com', password: PASSWORD });
    const start = s.statements();
    await request(s.app).post('/service-auth/forgot').send({ email: 'nobody@example.com' }).expect(202);
    const unknown = s.statementsAtAnswer.at(-1)! - start;
    expect({ known, unknown }).to.deep.equal({ known: 0, unknown: 0 });
  });

  it('does the work after the answer: the known address gets its mail, the unknown one nothing', async () => {
    const before = s.statements();
    await request(s.app).post('/service-auth/forgot').send({ email: 'ada@example.com' }).expect(202);
    await request(s.app).post('/service-auth/forgot').send({ email: 'nobody@example.com' }).expect(202);
    await partsOf(s.auth).resets.flush();
    // The lookups and the token's transaction, counted: the counter above does see statements.
    expect(s.statements() - before).to.be.at.least(3);
    const mails = await outboxMails(s.outbox);
    expect(mails.map((mail) => mail.to)).to.deep.equal(['ada@example.com']);
  });

  it('runs password_reset_requested after the answer: a slow handler does not hold it', async () => {
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    let handled = false;
    s.auth.on('password_reset_requested', async () => {
      await held;
      handled = true;
    });
    await request(s.app).post('/service-auth/forgot').send({ email: 'ada@example.com' }).expect(202);
    expect(handled, 'answered while the handler still waits').to.equal(false);
    release();
    await partsOf(s.auth).resets.flush();
    expect(handled).to.equal(true);
  });

  it('still refuses what is not an address, the same for everyone, before any work', async () => {
    const before = s.statements();
    const response = await request(s.app).post('/service-auth/forgot').send({ email: 'not an address' }).expect(422);
    expect(response.body.code).to.equal('invalid_email');
    expect(s.statements()).to.equal(before);
  });
});
