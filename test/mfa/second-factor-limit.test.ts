/**
 * Wrong authenticator codes are capped per account, across every client address (NIST SP 800-63B
 * §5.2.2): new addresses bring new tickets and new per-address counts, but not new guesses past
 * SERVICE_AUTH_RATE_LIMIT_SECOND_FACTOR_FAILURES (10 per day). Past it a code is 429 unchecked,
 * even the right one, while a recovery code still logs the owner in and clears the count. In
 * memory, and through Redis across two instances.
 */
import { expect } from 'chai';
import request from 'supertest';
import { totpCode } from '../../src/mfa/totp.js';
import { createTestApp, PASSWORD, sessionCookieFrom, temporaryDatabase, type TestApp } from '../helpers/app.js';
import { clearRateLimits, describeRedis, redisSettings, redisUrl } from '../helpers/services.js';

const SETTINGS = { 'trust proxy': true, SERVICE_AUTH_RATE_LIMIT_LOGIN: '100 per minute' };
const EMAIL = 'ada@example.com';

/** Each address's requests go to one of the instances, in turn. */
function clients(apps: TestApp[]) {
  const app = (ip: number) => apps[ip % apps.length]!.app;
  const address = (ip: number) => `203.0.113.${ip}`;
  return {
    /** The ticket the password earns, logging in from this address. */
    async ticket(ip: number): Promise<string> {
      const answer = await request(app(ip))
        .post('/service-auth/login')
        .set('X-Forwarded-For', address(ip))
        .send({ email: EMAIL, password: PASSWORD })
        .expect(401);
      return answer.body.ticket as string;
    },
    secondStep: (ip: number, body: Record<string, string>) =>
      request(app(ip)).post('/service-auth/login/mfa').set('X-Forwarded-For', address(ip)).send(body),
  };
}

/** Ada, with an authenticator app set up; her secret and recovery codes. */
async function enrolled(t: TestApp): Promise<{ secret: string; codes: string[] }> {
  await t.auth.users.create({ email: EMAIL, password: PASSWORD });
  const login = await request(t.app)
    .post('/service-auth/login')
    .set('X-Forwarded-For', '192.0.2.1')
    .send({ email: EMAIL, password: PASSWORD })
    .expect(200);
  const as = (test: request.Test) => test.set('Cookie', sessionCookieFrom(login)!).set('X-Forwarded-For', '192.0.2.1');
  const { secret } = (await as(request(t.app).post('/service-auth/api/mfa/totp')).expect(200)).body;
  const confirmed = await as(request(t.app).post('/service-auth/api/mfa/totp/confirm'))
    .send({ code: totpCode(secret, Date.now()) })
    .expect(200);
  return { secret, codes: confirmed.body.recovery_codes };
}

function capsWrongCodesPerAccount(build: () => Promise<TestApp[]>) {
  let apps: TestApp[];
  beforeEach(async () => {
    apps = await build();
  });
  afterEach(() => Promise.all(apps.map((t) => t.auth.close())));

  it('refuses the 11th wrong code from yet another address with 429 and Retry-After, and then even the right code; a recovery code still logs in and clears the count', async () => {
    const { secret, codes } = await enrolled(apps[0]!);
    const { ticket, secondStep } = clients(apps);
    // Four wrong codes from each of two addresses (each address's fifth failure would be its own
    // limit), and two from a third: ten, each from a ticket with tries left.
    for (const [ip, wrong] of [
      [1, 4],
      [2, 4],
      [3, 2],
    ] as const) {
      const mine = await ticket(ip);
      for (let i = 0; i < wrong; i++)
        expect((await secondStep(ip, { ticket: mine, code: '000000' }).expect(401)).body.code).to.equal('invalid_code');
    }
    const fresh = await ticket(4);
    const refused = await secondStep(4, { ticket: fresh, code: '000000' }).expect(429);
    expect(refused.body.code).to.equal('rate_limited');
    expect(refused.body.detail).to.contain('wrong authenticator codes for this account').and.contain('recovery code');
    expect(Number(refused.headers['retry-after'])).to.be.within(1, 86_400);
    expect(refused.headers['ratelimit-limit']).to.equal('10');
    const right = totpCode(secret, Date.now() + 30_000); // the enrolment used this step's
    expect(
      (await secondStep(4, { ticket: fresh, code: right }).expect(429)).body.code,
      'the right code is not checked either',
    ).to.equal('rate_limited');
    // The refusals took none of the ticket's tries: the owner's recovery code logs in with it.
    await secondStep(4, { ticket: fresh, recovery_code: codes[0]! }).expect(200);
    const later = await ticket(5);
    expect(
      (await secondStep(5, { ticket: later, code: '000000' }).expect(401)).body.code,
      'the count was cleared',
    ).to.equal('invalid_code');
    await secondStep(5, { ticket: later, code: right }).expect(200);
  });

  it('checks at most 10 wrong codes of one account even when sent at once from five addresses', async () => {
    await enrolled(apps[0]!);
    const { ticket, secondStep } = clients(apps);
    const tickets = await Promise.all([1, 2, 3, 4, 5].map((ip) => ticket(ip)));
    const guesses = tickets.flatMap((mine, n) =>
      Array.from({ length: 4 }, () => secondStep(n + 1, { ticket: mine, code: '000000' })),
    );
    const answers = (await Promise.all(guesses)).map((answer) => answer.body.code as string);
    expect(
      answers.filter((code) => code === 'invalid_code'),
      'codes checked',
    ).to.have.length(10);
    expect(answers.filter((code) => code === 'rate_limited')).to.have.length(10);
  });
}

describe('wrong authenticator codes per account (NIST SP 800-63B §5.2.2)', () => {
  capsWrongCodesPerAccount(async () => [await createTestApp(SETTINGS)]);
});

describeRedis('wrong authenticator codes per account, across instances', () => {
  let database: Awaited<ReturnType<typeof temporaryDatabase>>;
  capsWrongCodesPerAccount(async () => {
    await clearRateLimits(redisUrl!);
    database = await temporaryDatabase();
    const shared = { ...SETTINGS, SERVICE_AUTH_DATABASE_URL: database.url, ...redisSettings() };
    return [await createTestApp(shared), await createTestApp(shared)];
  });
  afterEach(() => database.remove());
  after(() => clearRateLimits(redisUrl!));
});
