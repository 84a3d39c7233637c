/**
 * Several application processes on one PostgreSQL database and one Redis behave as one
 * (CONTRACT section 10): limits count once across them, sessions and tokens made on one work on
 * the others, and revocation through one holds on all within a second.
 */
import { expect } from 'chai';
import { runCli } from '../cli/cli-process.js';
import { PASSWORD, resetTokenFrom, outboxMails } from '../helpers/app.js';
import { clearRateLimits, postgresUrl, redisSettings, redisUrl, whenService } from '../helpers/services.js';
import { call, sessionCookie, untilStatus } from './client.js';
import { startCluster, type Cluster } from './instances.js';

/** Revocation must reach every other instance within this long (CONTRACT sections 4 and 10). */
const PROPAGATION_MS = 1000;
const LOGIN_LIMIT = 6;

function describeServices(title: string, suite: () => void): void {
  whenService('PostgreSQL', postgresUrl, 'SERVICE_AUTH_TEST_DATABASE_URL', () =>
    whenService('Redis', redisUrl, 'SERVICE_AUTH_TEST_REDIS_URL', () =>
      describe(`${title} [PostgreSQL + Redis]`, suite),
    ),
  );
}

describeServices('three instances sharing one database and one Redis', function (this: Mocha.Suite) {
  this.timeout(60_000);
  let cluster: Cluster;
  let a: string, b: string, c: string;
  let serial = 0;
  const newEmail = () => `user${++serial}-${process.pid}@example.com`;

  before(async () => {
    cluster = await startCluster(3, {
      ...redisSettings(),
      SERVICE_AUTH_RATE_LIMIT_LOGIN: `${LOGIN_LIMIT} per minute`,
      SERVICE_AUTH_RATE_LIMIT_REGISTER: '100 per minute',
      SERVICE_AUTH_RATE_LIMIT_LOGIN_FAILURES: '100 per minute',
    });
    [a, b, c] = cluster.instances.map((instance) => instance.url) as [string, string, string];
  });
  beforeEach(() => clearRateLimits(redisUrl!));
  after(async () => {
    await cluster?.stop();
    await clearRateLimits(redisUrl!);
  });

  async function register(base: string): Promise<{ email: string; cookie: string }> {
    const email = newEmail();
    const response = await call(base, '/service-auth/register', { body: { email, password: PASSWORD } });
    expect(response.status, await response.clone().text()).to.equal(201);
    return { email, cookie: sessionCookie(response) };
  }

  async function createToken(base: string, cookie: string): Promise<{ id: string; token: string }> {
    const response = await call(base, '/service-auth/api/tokens', { body: { name: 'ci' }, cookie });
    expect(response.status, await response.clone().text()).to.equal(201);
    return (await response.json()) as { id: string; token: string };
  }

  it(`refuses login attempt ${LOGIN_LIMIT + 1} of a ${LOGIN_LIMIT}-per-minute limit spread over the instances`, async () => {
    const instances = [a, b, c];
    for (let attempt = 0; attempt < LOGIN_LIMIT; attempt++) {
      const response = await call(instances[attempt % 3]!, '/service-auth/login', {
        body: { email: newEmail(), password: 'Wrong-Password-1' },
      });
      expect(response.status).to.equal(401);
      expect(response.headers.get('ratelimit-remaining')).to.equal(String(LOGIN_LIMIT - attempt - 1));
    }
    for (const base of instances) {
      const refused = await call(base, '/service-auth/login', {
        body: { email: newEmail(), password: 'Wrong-Password-1' },
      });
      expect(refused.status).to.equal(429);
      expect(((await refused.json()) as { code: string }).code).to.equal('rate_limited');
      expect(Number(refused.headers.get('retry-after'))).to.be.within(1, 60);
    }
  });

  it('accepts a session created on one instance on the others', async () => {
    const { email, cookie } = await register(a);
    for (const base of [b, c]) {
      const response = await call(base, '/service-auth/me', { cookie });
      expect(response.status).to.equal(200);
      expect(((await response.json()) as { user: { email: string } }).user.email).to.equal(email);
    }
  });

  it('accepts a token created on one instance on the others, and refuses it everywhere within 1 s of its revocation', async () => {
    const { email, cookie } = await register(a);
    const { id, token } = await createToken(a, cookie);
    for (const base of [b, c]) {
      const response = await call(base, '/api/whoami', { token });
      expect(response.status).to.equal(200);
      expect(await response.json()).to.deep.equal({ email });
    }

    const revoked = await call(a, `/service-auth/api/tokens/${id}`, { method: 'DELETE', cookie });
    expect(revoked.status).to.equal(204);
    expect((await call(a, '/api/whoami', { token })).status, 'at once on the revoking instance').to.equal(401);
    await Promise.all(
      [b, c].map((base) => untilStatus(() => call(base, '/api/whoami', { token }), 401, PROPAGATION_MS)),
    );
  });

  it('ends a session on every instance within 1 s of logging out through one', async () => {
    const { cookie } = await register(a);
    expect((await call(b, '/service-auth/me', { cookie })).status).to.equal(200);

    const logout = await call(a, '/service-auth/logout', { method: 'POST', cookie });
    expect(logout.status).to.equal(204);
    await untilStatus(() => call(b, '/service-auth/me', { cookie }), 401, PROPAGATION_MS);
  });

  it("revokes a user's sessions and tokens on every instance within 1 s of a password reset through one", async () => {
    const { email, cookie } = await register(a);
    const { token } = await createToken(a, cookie);
    expect((await call(b, '/service-auth/me', { cookie })).status).to.equal(200);
    expect((await call(c, '/api/whoami', { token })).status).to.equal(200);

    expect((await call(b, '/service-auth/forgot', { body: { email } })).status).to.equal(202);
    const mail = (await outboxMails(cluster.outbox, 1)).find((m) => m.to === email);
    expect(mail, 'the reset mail').to.not.equal(undefined);
    const reset = await call(c, '/service-auth/reset', {
      body: { token: resetTokenFrom(mail!), password: `${PASSWORD}-new` },
    });
    expect(reset.status, await reset.clone().text()).to.equal(200);

    await Promise.all([
      untilStatus(() => call(b, '/service-auth/me', { cookie }), 401, PROPAGATION_MS),
      untilStatus(() => call(a, '/service-auth/me', { cookie }), 401, PROPAGATION_MS),
      untilStatus(() => call(c, '/api/whoami', { token }), 401, PROPAGATION_MS),
      untilStatus(() => call(b, '/api/whoami', { token }), 401, PROPAGATION_MS),
    ]);
    expect(
      (await call(a, '/service-auth/login', { body: { email, password: PASSWORD } })).status,
      'the old password',
    ).to.equal(401);
    expect(
      (await call(b, '/service-auth/login', { body: { email, password: `${PASSWORD}-new` } })).status,
      'the new password',
    ).to.equal(200);
  });

  it('accepts a token made with the CLI on every instance, and refuses it everywhere within 1 s of revoking it with the CLI', async () => {
    const { email } = await register(a);
    const database = ['--database', cluster.databaseUrl];
    const created = await runCli(['auth', 'create-token', '--email', email, '--name', 'from the CLI', ...database]);
    expect(created.code, created.stderr).to.equal(0);
    const token = created.stdout.trim();
    for (const base of [a, b, c]) expect((await call(base, '/api/whoami', { token })).status).to.equal(200);

    const revoked = await runCli(['auth', 'revoke-token', token.split('_')[1]!, ...database]);
    expect(revoked.code, revoked.stderr).to.equal(0);
    await Promise.all(
      [a, b, c].map((base) => untilStatus(() => call(base, '/api/whoami', { token }), 401, PROPAGATION_MS)),
    );
  });

  it("refuses a disabled user's token and session on every instance within 1 s of disabling them with the CLI", async () => {
    const { email, cookie } = await register(a);
    const { token } = await createToken(a, cookie);
    for (const base of [a, b, c]) expect((await call(base, '/api/whoami', { token })).status).to.equal(200);
    expect((await call(b, '/service-auth/me', { cookie })).status).to.equal(200);

    const disabled = await runCli(['auth', 'disable-user', email, '--database', cluster.databaseUrl]);
    expect(disabled.code, disabled.stderr).to.equal(0);
    await Promise.all([
      ...[a, b, c].map((base) => untilStatus(() => call(base, '/api/whoami', { token }), 401, PROPAGATION_MS)),
      untilStatus(() => call(b, '/service-auth/me', { cookie }), 401, PROPAGATION_MS),
    ]);
    const login = await call(c, '/service-auth/login', { body: { email, password: PASSWORD } });
    expect(login.status).to.equal(403);
    expect(((await login.json()) as { code: string }).code).to.equal('account_disabled');
  });

  it('ends a session on every instance within 1 s of ending it from another device through one', async () => {
    const { email, cookie } = await register(a);
    const other = sessionCookie(await call(b, '/service-auth/login', { body: { email, password: PASSWORD } }));
    expect((await call(c, '/service-auth/me', { cookie: other })).status).to.equal(200);

    const ended = await call(a, '/service-auth/api/sessions', { method: 'DELETE', cookie });
    expect(ended.status).to.equal(204);
    await Promise.all(
      [b, c].map((base) => untilStatus(() => call(base, '/service-auth/me', { cookie: other }), 401, PROPAGATION_MS)),
    );
    expect((await call(c, '/service-auth/me', { cookie })).status, 'the session that ended the others').to.equal(200);
  });
});
