import { expect } from 'chai';
import { mkdir, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import request from 'supertest';
import { safeNext } from '../../src/http/browser.js';
import { createTestApp, outboxMails, PASSWORD, resetTokenFrom, sessionCookieFrom, temporaryDirectory, type TestApp } from '../helpers/app.js';

const HTML = 'text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8';
const form = (t: TestApp, path: string, body: Record<string, string>) =>
  request(t.app).post(`/service-auth${path}`).set('Accept', HTML).set('Sec-Fetch-Site', 'same-origin').type('form').send(body);

describe('browser pages', () => {
  let t: TestApp;
  let outbox: string;
  beforeEach(async () => {
    outbox = await temporaryDirectory();
    t = await createTestApp({ SERVICE_AUTH_RATE_LIMIT_ENABLED: false, SERVICE_AUTH_MAIL_OUTBOX: outbox });
  });
  afterEach(async () => {
    await t.auth.close();
    await rm(outbox, { recursive: true, force: true });
  });

  for (const [path, action, fields] of [
    ['/login', '/service-auth/login', ['email', 'password']],
    ['/register', '/service-auth/register', ['email', 'password']],
    ['/forgot', '/service-auth/forgot', ['email']],
  ] as const) {
    it(`GET ${path} serves an accessible form posting to ${action}`, async () => {
      const response = await request(t.app).get(`/service-auth${path}`).expect(200);
      expect(response.headers['content-type']).to.match(/^text\/html/);
      expect(response.headers['cache-control']).to.equal('no-store');
      expect(response.headers['x-frame-options']).to.equal('DENY');
      expect(response.headers['content-security-policy']).to.equal("frame-ancestors 'none'");
      expect(response.text).to.contain(`<form method="post" action="${action}">`);
      expect(response.text).to.contain('<html lang="en">');
      for (const field of fields) {
        expect(response.text).to.contain(`<label for="${field}">`);
        expect(response.text).to.contain(`id="${field}" name="${field}"`);
      }
    });
  }

  it('GET /reset shows the form for a usable token and explains an unusable one', async () => {
    await t.auth.users.create({ email: 'ada@example.com', password: PASSWORD });
    await request(t.app).post('/service-auth/forgot').send({ email: 'ada@example.com' }).expect(202);
    const token = resetTokenFrom((await outboxMails(outbox))[0]!);
    const usable = await request(t.app).get(`/service-auth/reset?token=${token}`).expect(200);
    expect(usable.text).to.contain('action="/service-auth/reset"').and.contain(`value="${token}"`);
    expect(usable.text).to.contain('<meta name="referrer" content="no-referrer">');
    const unusable = await request(t.app).get('/service-auth/reset?token=nope').expect(200);
    expect(unusable.text).not.to.contain('<form');
    expect(unusable.text).to.contain('href="/service-auth/forgot"');
  });

  it('a form login redirects (303) to a same-site next', async () => {
    await t.auth.users.create({ email: 'ada@example.com', password: PASSWORD });
    const page = await request(t.app).get('/service-auth/login?next=%2Fadmin%3Ftab%3D1').expect(200);
    expect(page.text).to.contain('name="next" value="/admin?tab=1"');
    const response = await form(t, '/login', { email: 'ada@example.com', password: PASSWORD, next: '/admin?tab=1' }).expect(303);
    expect(response.headers['location']).to.equal('/admin?tab=1');
    expect(sessionCookieFrom(response)).to.match(/^service_auth_session=/);
  });

  it('never redirects to another site (no open redirect)', async () => {
    await t.auth.users.create({ email: 'ada@example.com', password: PASSWORD });
    for (const next of ['https://evil.example/', '//evil.example/x', '/\\evil.example', 'javascript:alert(1)', '/\t/evil.example']) {
      const response = await form(t, '/login', { email: 'ada@example.com', password: PASSWORD, next }).expect(303);
      expect(response.headers['location'], next).to.equal('/');
    }
    const page = await request(t.app).get('/service-auth/login?next=//evil.example').expect(200);
    expect(page.text).not.to.contain('evil.example');
  });

  it('a failed form login shows the form again with the problem, the same status, and the email kept', async () => {
    await t.auth.users.create({ email: 'ada@example.com', password: PASSWORD });
    const response = await form(t, '/login', { email: 'ada@example.com', password: 'Wrong-Password-1' }).expect(401);
    expect(response.headers['content-type']).to.match(/^text\/html/);
    expect(response.text).to.contain('role="alert"').and.contain('The email or password is not right');
    expect(response.text).to.contain('value="ada@example.com"');
    expect(response.text).not.to.contain('Wrong-Password-1');
  });

  it('a form registration with a weak password lists every failed rule', async () => {
    const response = await form(t, '/register', { email: 'ada@example.com', password: 'weak' }).expect(422);
    expect(response.text).to.contain('must be at least 12 characters long').and.contain('must contain a digit (0-9)');
  });

  it('escapes what it echoes', async () => {
    const response = await form(t, '/register', { email: '"><script>alert(1)</script>', password: PASSWORD }).expect(422);
    expect(response.text).not.to.contain('<script>alert(1)</script>');
    expect(response.text).to.contain('&lt;script&gt;');
  });

  it('walks a person through forgot, reset and login with forms only', async () => {
    await t.auth.users.create({ email: 'ada@example.com', password: PASSWORD });
    const forgot = await form(t, '/forgot', { email: 'ada@example.com' }).expect(200);
    expect(forgot.text).to.contain('role="status"').and.contain('on its way');
    const token = resetTokenFrom((await outboxMails(outbox))[0]!);
    const reset = await form(t, '/reset', { token, password: 'Brand-New-Password-42' }).expect(303);
    expect(reset.headers['location']).to.equal('/service-auth/login?reset=done');
    const login = await request(t.app).get('/service-auth/login?reset=done').expect(200);
    expect(login.text).to.contain('Your password has been changed');
    await form(t, '/login', { email: 'ada@example.com', password: 'Brand-New-Password-42' }).expect(303);
  });

  it('a form logout redirects home', async () => {
    await t.auth.users.create({ email: 'ada@example.com', password: PASSWORD });
    const cookie = sessionCookieFrom(await request(t.app).post('/service-auth/login').send({ email: 'ada@example.com', password: PASSWORD }))!;
    const response = await form(t, '/logout', {}).set('Cookie', cookie).expect(303);
    expect(response.headers['location']).to.equal('/');
    await request(t.app).get('/service-auth/me').set('Cookie', cookie).expect(401);
  });

  it("renders the application's own view service-auth/<page> when its view engine has one", async () => {
    const views = await temporaryDirectory();
    try {
      await mkdir(join(views, 'service-auth'));
      await writeFile(join(views, 'service-auth', 'login.html'), '<p>Our own login page, next={{next}}</p>');
      const custom = await createTestApp({ views, 'view engine': 'html' }, (app) => {
        app.engine('html', (file, locals, callback) => {
          import('node:fs/promises')
            .then(({ readFile }) => readFile(file, 'utf8'))
            .then((template) => callback(null, template.replace('{{next}}', String((locals as { next?: string }).next))))
            .catch(callback);
        });
      });
      try {
        const login = await request(custom.app).get('/service-auth/login?next=/x').expect(200);
        expect(login.text).to.equal('<p>Our own login page, next=/x</p>');
        // Pages without a view of their own keep the built-in one.
        expect((await request(custom.app).get('/service-auth/forgot').expect(200)).text).to.contain('<form method="post"');
      } finally {
        await custom.auth.close();
      }
    } finally {
      await rm(views, { recursive: true, force: true });
    }
  });
});

describe('safeNext', () => {
  it('keeps same-site paths and refuses everything else', () => {
    expect(safeNext('/admin')).to.equal('/admin');
    expect(safeNext('/users/7/profile?x=1#top')).to.equal('/users/7/profile?x=1#top');
    for (const bad of ['//evil.example', '/\\evil.example', 'https://evil.example', 'evil', '', '/a\nb', 42, undefined]) {
      expect(safeNext(bad), String(bad)).to.equal('/');
    }
  });
});
