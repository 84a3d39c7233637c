import { expect } from 'chai';
import request from 'supertest';
import { createTestApp, PASSWORD, sessionCookieFrom, type TestApp } from '../helpers/app.js';

describe('CSRF: requests from other sites', () => {
  let t: TestApp;
  let users = 0;
  beforeEach(async () => {
    t = await createTestApp({
      SERVICE_AUTH_RATE_LIMIT_ENABLED: false,
      SERVICE_AUTH_PUBLIC_URL: 'https://app.example.com',
    });
    await t.auth.users.create({ email: 'ada@example.com', password: PASSWORD });
    users = 1;
  });
  afterEach(() => t.auth.close());

  const credentials = { email: 'ada@example.com', password: PASSWORD };

  it('refuses a login POST marked Sec-Fetch-Site: cross-site (login CSRF), starting no session', async () => {
    const response = await request(t.app)
      .post('/service-auth/login')
      .set('Sec-Fetch-Site', 'cross-site')
      .send(credentials)
      .expect(403);
    expect(response.body.code).to.equal('csrf_rejected');
    expect(response.headers['set-cookie']).to.equal(undefined);
  });

  it('refuses a register POST from another site, creating no user', async () => {
    const response = await request(t.app)
      .post('/service-auth/register')
      .set('Sec-Fetch-Site', 'cross-site')
      .send({ email: 'planted@example.com', password: PASSWORD })
      .expect(403);
    expect(response.body.code).to.equal('csrf_rejected');
    expect(await t.auth.users.list()).to.have.length(users);
  });

  it('without Sec-Fetch-Site, refuses an Origin that is neither the request origin nor the public URL', async () => {
    await request(t.app)
      .post('/service-auth/login')
      .set('Origin', 'https://evil.example')
      .send(credentials)
      .expect(403);
    await request(t.app).post('/service-auth/login').set('Origin', 'null').send(credentials).expect(403);
  });

  it('accepts same-origin and user-initiated requests, the public URL origin, and requests without either header', async () => {
    await request(t.app).post('/service-auth/login').set('Sec-Fetch-Site', 'same-origin').send(credentials).expect(200);
    await request(t.app).post('/service-auth/login').set('Sec-Fetch-Site', 'none').send(credentials).expect(200);
    await request(t.app)
      .post('/service-auth/login')
      .set('Origin', 'https://app.example.com')
      .send(credentials)
      .expect(200);
    await request(t.app).post('/service-auth/login').send(credentials).expect(200);
    // The request's own origin, as Express sees it (protocol and Host).
    await request(t.app)
      .post('/service-auth/login')
      .set('Host', 'internal:8080')
      .set('Origin', 'http://internal:8080')
      .send(credentials)
      .expect(200);
  });

  it('lets Sec-Fetch-Site same-origin or none decide over Origin when both are sent', async () => {
    await request(t.app)
      .post('/service-auth/login')
      .set('Sec-Fetch-Site', 'same-origin')
      .set('Origin', 'https://evil.example')
      .send(credentials)
      .expect(200);
    await request(t.app)
      .post('/service-auth/login')
      .set('Sec-Fetch-Site', 'none')
      .set('Origin', 'https://evil.example')
      .send(credentials)
      .expect(200);
  });

  it('holds same-site and unknown Sec-Fetch-Site values to the Origin check: a sibling subdomain cannot create tokens', async () => {
    const cookie = sessionCookieFrom(await request(t.app).post('/service-auth/login').send(credentials).expect(200))!;
    for (const site of ['same-site', 'cross-origin', 'whatever']) {
      for (const origin of ['https://evil.app.example.com', undefined]) {
        const call = request(t.app).post('/service-auth/api/tokens').set('Cookie', cookie).set('Sec-Fetch-Site', site);
        if (origin) call.set('Origin', origin);
        const response = await call.send({ name: 'planted' }).expect(403);
        expect(response.body.code, `${site} from ${origin}`).to.equal('csrf_rejected');
      }
    }
    expect(await t.auth.tokens.list({ user: 'ada@example.com' })).to.deep.equal([]);
    await request(t.app)
      .post('/service-auth/login')
      .set('Sec-Fetch-Site', 'same-site')
      .set('Origin', 'https://evil.app.example.com')
      .send(credentials)
      .expect(403);
    // The public URL's own origin passes, as without the header.
    await request(t.app)
      .post('/service-auth/api/tokens')
      .set('Cookie', cookie)
      .set('Sec-Fetch-Site', 'same-site')
      .set('Origin', 'https://app.example.com')
      .send({ name: 'mine' })
      .expect(201);
  });

  it('refuses a cookie-authenticated logout from another site and keeps the session', async () => {
    const cookie = sessionCookieFrom(await request(t.app).post('/service-auth/login').send(credentials).expect(200))!;
    const response = await request(t.app)
      .post('/service-auth/logout')
      .set('Cookie', cookie)
      .set('Sec-Fetch-Site', 'cross-site')
      .expect(403);
    expect(response.body.code).to.equal('csrf_rejected');
    await request(t.app).get('/service-auth/me').set('Cookie', cookie).expect(200);
    await request(t.app)
      .post('/service-auth/logout')
      .set('Cookie', cookie)
      .set('Sec-Fetch-Site', 'same-origin')
      .expect(204);
  });

  it('refuses forgot and reset from another site too, sending nothing', async () => {
    for (const [path, body] of [
      ['/forgot', { email: 'ada@example.com' }],
      ['/reset', { token: 'x'.repeat(43), password: PASSWORD }],
    ] as const) {
      const crossSite = await request(t.app)
        .post(`/service-auth${path}`)
        .set('Sec-Fetch-Site', 'cross-site')
        .send(body)
        .expect(403);
      expect(crossSite.body.code).to.equal('csrf_rejected');
      const sibling = await request(t.app)
        .post(`/service-auth${path}`)
        .set('Origin', 'https://evil.example')
        .send(body)
        .expect(403);
      expect(sibling.body.code).to.equal('csrf_rejected');
    }
    await request(t.app)
      .post('/service-auth/forgot')
      .set('Sec-Fetch-Site', 'same-origin')
      .send({ email: 'ada@example.com' })
      .expect(202);
  });
});
