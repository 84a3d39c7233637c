import { expect } from 'chai';
import request from 'supertest';
import { safeNext } from '../../src/http/requests/negotiation.js';
import { COPY_SCRIPT, PASSKEY_SCRIPT, STYLESHEET, WEBAUTHN_BROWSER } from '../../src/http/pages/assets.js';
import {
  createAppWithOutbox,
  createTestApp,
  outboxMails,
  PASSWORD,
  resetTokenFrom,
  sessionCookieFrom,
  type AppWithOutbox,
  type TestApp,
} from '../helpers/app.js';
import { cspHash, formPost, tagWithId } from '../helpers/forms.js';

describe('browser pages', () => {
  let t: AppWithOutbox;
  beforeEach(async () => {
    t = await createAppWithOutbox();
  });
  afterEach(() => t.close());

  const form = (path: string, body: Record<string, string>) => formPost(t.app, path, body);
  const ada = () => t.auth.users.create({ email: 'ada@example.com', password: PASSWORD });

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
      expect(response.text).to.contain(`<form method="post" action="${action}" novalidate>`);
      expect(response.text)
        .to.contain('<html lang="en">')
        .and.contain('<meta name="viewport" content="width=device-width, initial-scale=1">');
      for (const field of fields) {
        expect(response.text).to.contain(`<label for="${field}">`);
        expect(response.text).to.contain(`id="${field}" name="${field}"`);
      }
      // No errors yet: nothing marked invalid, nothing pulling the focus.
      expect(response.text).not.to.contain('aria-invalid').and.not.to.contain('autofocus');
    });
  }

  it('allows exactly its own inline style and script, forms to this site only, and no framing', async () => {
    const page = await request(t.app).get('/service-auth/login').expect(200);
    expect(page.headers['content-security-policy']).to.equal(
      [
        "default-src 'none'",
        `style-src ${cspHash(STYLESHEET)}`,
        `script-src ${cspHash(COPY_SCRIPT)} ${cspHash(WEBAUTHN_BROWSER)} ${cspHash(PASSKEY_SCRIPT)}`,
        "connect-src 'self'",
        "form-action 'self'",
        "base-uri 'none'",
        "frame-ancestors 'none'",
      ].join('; '),
    );
    // The page's one style sheet is the one allowed; no style attributes, which no hash covers.
    expect([...page.text.matchAll(/<style>([\s\S]*?)<\/style>/g)].map((m) => m[1])).to.deep.equal([STYLESHEET]);
    expect(page.text).not.to.match(/ style="/);
  });

  it('GET /reset shows the form for a usable token and explains an unusable one', async () => {
    await ada();
    await request(t.app).post('/service-auth/forgot').send({ email: 'ada@example.com' }).expect(202);
    const token = resetTokenFrom((await outboxMails(t.outbox))[0]!);
    const usable = await request(t.app).get(`/service-auth/reset?token=${token}`).expect(200);
    expect(usable.text).to.contain('action="/service-auth/reset"').and.contain(`value="${token}"`);
    expect(usable.text).to.contain('<meta name="referrer" content="no-referrer">');
    const unusable = await request(t.app).get('/service-auth/reset?token=nope').expect(200);
    expect(unusable.text).not.to.contain('<form');
    expect(unusable.text).to.contain('role="alert"').and.contain('unknown, expired or already used');
    expect(unusable.text).to.contain('href="/service-auth/forgot"');
  });

  it('a form login redirects (303) to a same-site next', async () => {
    await ada();
    const page = await request(t.app).get('/service-auth/login?next=%2Fadmin%3Ftab%3D1').expect(200);
    expect(page.text).to.contain('name="next" value="/admin?tab=1"');
    const response = await form('/login', {
      email: 'ada@example.com',
      password: PASSWORD,
      next: '/admin?tab=1',
    }).expect(303);
    expect(response.headers['location']).to.equal('/admin?tab=1');
    expect(sessionCookieFrom(response)).to.match(/^service_auth_session=/);
  });

  it('never redirects to another site (no open redirect)', async () => {
    await ada();
    for (const next of [
      'https://evil.example/',
      '//evil.example/x',
      '/\\evil.example',
      'javascript:alert(1)',
      '/\t/evil.example',
    ]) {
      const response = await form('/login', { email: 'ada@example.com', password: PASSWORD, next }).expect(303);
      expect(response.headers['location'], next).to.equal('/');
    }
    const page = await request(t.app).get('/service-auth/login?next=//evil.example').expect(200);
    expect(page.text).not.to.contain('evil.example');
  });

  it('a failed form login puts the problem beside the password, focuses it, and keeps the email', async () => {
    await ada();
    const response = await form('/login', { email: 'ada@example.com', password: 'Wrong-Password-1' }).expect(401);
    expect(response.headers['content-type']).to.match(/^text\/html/);
    const password = tagWithId(response.text, 'password');
    expect(password)
      .to.contain('aria-invalid="true"')
      .and.contain('aria-describedby="password-error"')
      .and.contain('autofocus');
    expect(response.text).to.match(/id="password-error">.*The email or password is not right\./);
    expect(response.text).to.contain('role="alert"').and.contain('<a href="#password">');
    expect(tagWithId(response.text, 'email')).to.contain('value="ada@example.com"').and.not.contain('aria-invalid');
    expect(response.text).not.to.contain('Wrong-Password-1');
    expect(response.text.match(/autofocus/g)).to.have.length(1);
  });

  it('a form registration with a weak password lists every failed rule beside the password', async () => {
    const response = await form('/register', { email: 'ada@example.com', password: 'weak' }).expect(422);
    const error = /<div class="field-error" id="password-error">([\s\S]*?)<\/div>/.exec(response.text)![1]!;
    expect(error).to.contain('The password needs:');
    expect(error).to.contain('<li>at least 12 characters</li>').and.contain('<li>an uppercase letter (A-Z)</li>');
    expect(error)
      .to.contain('<li>a digit (0-9)</li>')
      .and.contain('<li>a special character (anything but A-Z, a-z and 0-9)</li>');
    expect(error).not.to.contain('lowercase');
    expect(response.text).to.contain(
      '<li><a href="#password">The password needs: at least 12 characters, an uppercase letter (A-Z), a digit (0-9),',
    );
    // The error first, then the rules the field always shows.
    expect(tagWithId(response.text, 'password'))
      .to.contain('aria-describedby="password-error password-hint"')
      .and.contain('autofocus');
  });

  it('with several fields wrong, marks each and focuses the first', async () => {
    const response = await form('/register', { email: '', password: '' }).expect(400);
    expect(tagWithId(response.text, 'email')).to.contain('aria-invalid="true"').and.contain('autofocus');
    expect(tagWithId(response.text, 'password')).to.contain('aria-invalid="true"').and.not.contain('autofocus');
    expect(response.text)
      .to.match(/id="email-error">.*Fill in this field\./)
      .and.to.match(/id="password-error">.*Fill in this field\./);
  });

  it('an address already registered, or not an address, is an error beside the email', async () => {
    await ada();
    const taken = await form('/register', { email: 'ada@example.com', password: PASSWORD }).expect(409);
    expect(taken.text).to.match(/id="email-error">.*An account with this email already exists/);
    expect(tagWithId(taken.text, 'email')).to.contain('autofocus');
    const invalid = await form('/forgot', { email: 'not an address' }).expect(422);
    expect(invalid.text).to.match(/id="email-error">.*Enter an email address/);
  });

  it('escapes what it echoes', async () => {
    const response = await form('/register', { email: '"><script>alert(1)</script>', password: PASSWORD }).expect(422);
    expect(response.text).not.to.contain('<script>alert(1)</script>');
    expect(response.text).to.contain('&lt;script&gt;');
  });

  it('walks a person through forgot, reset and login with forms only', async () => {
    await ada();
    // The API's status, 202: the mail is on its way, or not (the page does not say which).
    const forgot = await form('/forgot', { email: 'ada@example.com' }).expect(202);
    expect(forgot.text).to.contain('role="status"').and.contain('on its way');
    const token = resetTokenFrom((await outboxMails(t.outbox))[0]!);
    const reset = await form('/reset', { token, password: 'Brand-New-Password-42' }).expect(303);
    expect(reset.headers['location']).to.equal('/service-auth/login?reset=done');
    const login = await request(t.app).get('/service-auth/login?reset=done').expect(200);
    expect(login.text).to.contain('Your password has been changed');
    await form('/login', { email: 'ada@example.com', password: 'Brand-New-Password-42' }).expect(303);
  });

  it('a reset link used up, or without its token, shows "ask for a new link" rather than the form', async () => {
    await ada();
    await request(t.app).post('/service-auth/forgot').send({ email: 'ada@example.com' }).expect(202);
    const token = resetTokenFrom((await outboxMails(t.outbox))[0]!);
    await form('/reset', { token, password: 'Brand-New-Password-42' }).expect(303);
    const bodies: Record<string, string>[] = [
      { token, password: 'Another-New-Password-43' },
      { password: 'Another-New-Password-43' },
    ];
    for (const body of bodies) {
      const again = await form('/reset', body).expect(400);
      expect(again.headers['content-type']).to.match(/^text\/html/);
      expect(again.text).to.contain('unknown, expired or already used').and.contain('href="/service-auth/forgot"');
      expect(again.text).not.to.contain('<form');
    }
  });

  it('a weak new password keeps the reset form, with the token, and the rules beside the field', async () => {
    await ada();
    await request(t.app).post('/service-auth/forgot').send({ email: 'ada@example.com' }).expect(202);
    const token = resetTokenFrom((await outboxMails(t.outbox))[0]!);
    const response = await form('/reset', { token, password: 'short' }).expect(422);
    expect(response.text).to.contain(`name="token" value="${token}"`).and.contain('<li>at least 12 characters</li>');
    expect(tagWithId(response.text, 'password')).to.contain('autofocus');
  });

  it('a form logout redirects home', async () => {
    await ada();
    const cookie = sessionCookieFrom(
      await request(t.app).post('/service-auth/login').send({ email: 'ada@example.com', password: PASSWORD }),
    )!;
    const response = await form('/logout', {}).set('Cookie', cookie).expect(303);
    expect(response.headers['location']).to.equal('/');
    await request(t.app).get('/service-auth/me').set('Cookie', cookie).expect(401);
  });

  it('API clients still get JSON from the same endpoints', async () => {
    await ada();
    const json = await request(t.app)
      .post('/service-auth/login')
      .send({ email: 'ada@example.com', password: 'Wrong-Password-1' })
      .expect(401);
    expect(json.headers['content-type']).to.match(/^application\/problem\+json/);
    // A urlencoded post from curl (Accept */*) is an API call too.
    const curl = await request(t.app)
      .post('/service-auth/login')
      .set('Accept', '*/*')
      .type('form')
      .send({ email: 'ada@example.com', password: 'x' })
      .expect(401);
    expect(curl.body.code).to.equal('invalid_credentials');
  });
});

describe('browser pages: refusals get a page of their own', () => {
  let t: TestApp;
  afterEach(() => t.auth.close());

  it('too many attempts: 429 with Retry-After, what happened, and a link back to the form', async () => {
    t = await createTestApp({ SERVICE_AUTH_RATE_LIMIT_LOGIN: '1 per minute' });
    await formPost(t.app, '/login', { email: 'ada@example.com', password: 'Wrong-Password-1', next: '/admin' }).expect(
      401,
    );
    const response = await formPost(t.app, '/login', {
      email: 'ada@example.com',
      password: 'Wrong-Password-1',
      next: '/admin',
    }).expect(429);
    expect(response.headers['content-type']).to.match(/^text\/html/);
    expect(Number(response.headers['retry-after'])).to.be.within(1, 60);
    expect(response.text)
      .to.contain('<h1>Too many attempts</h1>')
      .and.contain(`Please wait ${response.headers['retry-after']} seconds`);
    expect(response.text).to.contain('href="/service-auth/login?next=%2Fadmin"');
    expect(response.text).not.to.contain('<form');
  });

  it('a form sent from another site: 403 explained, with a link to the page on this site', async () => {
    t = await createTestApp({ SERVICE_AUTH_RATE_LIMIT_ENABLED: false });
    await t.auth.users.create({ email: 'ada@example.com', password: PASSWORD });
    const crossSite = (path: string) =>
      formPost(t.app, path, { email: 'ada@example.com', password: PASSWORD }).set('Sec-Fetch-Site', 'cross-site');
    const login = await crossSite('/login').expect(403);
    expect(login.headers['content-type']).to.match(/^text\/html/);
    expect(login.text)
      .to.contain('<h1>Request refused</h1>')
      .and.contain('sent from another site')
      .and.contain('href="/service-auth/login"');
    expect(login.headers['set-cookie']).to.equal(undefined);

    const cookie = sessionCookieFrom(
      await request(t.app).post('/service-auth/login').send({ email: 'ada@example.com', password: PASSWORD }),
    )!;
    const logout = await crossSite('/logout').set('Cookie', cookie).expect(403);
    expect(logout.text).to.contain('<h1>Request refused</h1>');
    const token = await formPost(t.app, '/api/tokens', { name: 'planted' })
      .set('Sec-Fetch-Site', 'cross-site')
      .set('Cookie', cookie)
      .expect(403);
    expect(token.text).to.contain('<h1>Request refused</h1>').and.contain('href="/service-auth/tokens"');
    expect(await t.auth.tokens.list({ user: 'ada@example.com' })).to.have.length(0);
    await request(t.app).get('/service-auth/me').set('Cookie', cookie).expect(200);
  });

  it('a token form sent after the session ended: 401 with a link to log in and come back', async () => {
    t = await createTestApp({ SERVICE_AUTH_RATE_LIMIT_ENABLED: false });
    const response = await formPost(t.app, '/api/tokens', { name: 'late' })
      .set('Cookie', 'service_auth_session=expired')
      .expect(401);
    expect(response.headers['content-type']).to.match(/^text\/html/);
    expect(response.text)
      .to.contain('<h1>Please log in again</h1>')
      .and.contain('href="/service-auth/login?next=%2Fservice-auth%2Ftokens"');
  });
});

describe('safeNext', () => {
  it('keeps same-site paths and refuses everything else', () => {
    expect(safeNext('/admin')).to.equal('/admin');
    expect(safeNext('/users/7/profile?x=1#top')).to.equal('/users/7/profile?x=1#top');
    for (const bad of [
      '//evil.example',
      '/\\evil.example',
      'https://evil.example',
      'evil',
      '',
      '/a\nb',
      42,
      undefined,
    ]) {
      expect(safeNext(bad), String(bad)).to.equal('/');
    }
  });
});
