/**
 * A provider that cannot be reached: the person is refused as for any failure on the provider's
 * side (`provider_error`), and the operator's log says what failed, by the error's names and codes
 * only (never a message, which may carry what the browser brought back from the provider).
 */
import { expect } from 'chai';
import { createServer, type Socket } from 'node:net';
import request from 'supertest';
import { createTestApp, type TestApp } from '../helpers/app.js';

/** A loopback port nothing listens on: taken, then closed. */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise((resolve) => server.close(resolve));
  return port;
}

describe('sign-in through an identity provider that cannot be reached', () => {
  let t: TestApp;

  before(async () => {
    t = await createTestApp({
      SERVICE_AUTH_PUBLIC_URL: 'http://app.test',
      SERVICE_AUTH_SSO_PROVIDERS: 'down',
      SERVICE_AUTH_SSO_DOWN_ISSUER: `http://127.0.0.1:${await closedPort()}`,
      SERVICE_AUTH_SSO_DOWN_CLIENT_ID: 'app',
      SERVICE_AUTH_SSO_DOWN_CLIENT_SECRET: 'app-secret',
    });
  });
  after(() => t.auth.close());

  it('refuses the sign-in as provider_error, and logs which provider failed and how', async () => {
    const response = await request(t.app).get('/service-auth/sso/down').set('Accept', 'application/json');
    expect(response.status).to.equal(400);
    expect(response.body).to.include({ code: 'sso_failed', reason: 'provider_error' });
    const line = t.log.entries.find((entry) => entry.message.includes('identity provider "down"'));
    expect(line, t.log.text()).to.not.equal(undefined);
    expect(line!.level).to.equal('warn');
    expect(line!.message).to.match(
      /^sign-in through identity provider "down" failed on the provider's side: .*ECONNREFUSED/,
    );
  });
});

describe('sign-in through an identity provider that never answers', () => {
  let t: TestApp;
  const held: Socket[] = [];
  // Accepts every connection and says nothing: the provider that hangs.
  const silent = createServer((socket) => void held.push(socket));

  before(async () => {
    await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
    t = await createTestApp({
      SERVICE_AUTH_PUBLIC_URL: 'http://app.test',
      SERVICE_AUTH_SSO_PROVIDERS: 'silent',
      SERVICE_AUTH_SSO_SILENT_ISSUER: `http://127.0.0.1:${(silent.address() as { port: number }).port}`,
      SERVICE_AUTH_SSO_SILENT_CLIENT_ID: 'app',
      SERVICE_AUTH_SSO_SILENT_CLIENT_SECRET: 'app-secret',
      SERVICE_AUTH_SSO_TIMEOUT: 1,
    });
  });
  after(async () => {
    await t.auth.close();
    for (const socket of held) socket.destroy();
    await new Promise((resolve) => silent.close(resolve));
  });

  it('gives it up after SERVICE_AUTH_SSO_TIMEOUT: provider_error, and the log says it timed out', async () => {
    const response = await request(t.app).get('/service-auth/sso/silent').set('Accept', 'application/json');
    expect(response.status).to.equal(400);
    expect(response.body).to.include({ code: 'sso_failed', reason: 'provider_error' });
    expect(held.length, 'the provider was asked').to.be.above(0);
    expect(t.log.text()).to.match(/identity provider "silent" failed on the provider's side: .*(Timeout|Abort)/);
  });
});
