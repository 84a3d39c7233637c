/**
 * The logged-in person's own pages, driven as a browser drives them: `/password`, `/email`,
 * `/delete-account` and `/sessions`, their forms, and every refusal as a page (never JSON), with
 * what was typed shown again but never a password.
 */
import { expect } from 'chai';
import request from 'supertest';
import {
  createAppWithOutbox,
  createTestApp,
  outboxMails,
  PASSWORD,
  sessionCookieFrom,
  type AppWithOutbox,
} from '../helpers/app.js';
import { formPost, HTML, pageGet, tagWithId } from '../helpers/forms.js';

const NEW_PASSWORD = 'Brand-New-Password-42';
const FIREFOX = 'Mozilla/5.0 (X11; Linux x86_64; rv:128.0) Gecko/20100101 Firefox/128.0';
const IPHONE =
  'Mozilla/5.0 (iPhone; CPU iPhone OS 17_5 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.5 Mobile/15E148 Safari/604.1';

describe('the account pages of a logged-in person', () => {
  let t: AppWithOutbox;
  beforeEach(async () => {
    t = await createAppWithOutbox();
    await t.auth.users.create({ email: 'ada@example.com', password: PASSWORD });
  });
  afterEach(() => t.close());

  /** A session of Ada's, started from a browser with this User-Agent. */
  const logIn = async (userAgent = FIREFOX, password = PASSWORD) =>
    sessionCookieFrom(
      await request(t.app)
        .post('/service-auth/login')
        .set('User-Agent', userAgent)
        .send({ email: 'ada@example.com', password })
        .expect(200),
    )!;
  const isLoggedIn = async (cookie: string) =>
    (await request(t.app).get('/service-auth/me').set('Cookie', cookie)).status === 200;

  describe('GET /password, /email, /delete-account, /sessions', () => {
    const PAGES = [
      ['/password', 'Change your password', '/service-auth/password', ['current_password', 'password']],
      ['/email', 'Change your email address', '/service-auth/email', ['email', 'password']],
      ['/delete-account', 'Delete your account', '/service-auth/delete-account', ['password']],
    ] as const;

    for (const [path, title, action, fields] of PAGES) {
      it(`GET ${path}: a labelled form posting to ${action}, and the links between the account's pages`, async () => {
        const page = await pageGet(t.app, path)
          .set('Cookie', await logIn())
          .expect(200);
        expect(page.headers['content-type']).to.match(/^text\/html/);
        expect(page.headers['cache-control']).to.equal('no-store');
        expect(page.text)
          .to.contain(`<h1>${title}</h1>`)
          .and.contain(`<form method="post" action="${action}" novalidate>`);
        for (const field of fields)
          expect(page.text).to.contain(`<label for="${field}">`).and.contain(`id="${field}" name="${field}"`);
        expect(page.text).to.contain(`<a href="/service-auth${path}" aria-current="page">`);
        for (const other of ['/sessions', '/password', '/email', '/tokens', '/delete-account'])
          expect(page.text).to.contain(`href="/service-auth${other}"`);
        expect(page.text).not.to.contain('autofocus');
      });
    }

    it('sends a browser without a session to the login page, and back after', async () => {
      for (const path of ['/password', '/email', '/delete-account', '/sessions']) {
        const response = await pageGet(t.app, path).expect(303);
        expect(response.headers['location'], path).to.equal(
          `/service-auth/login?next=${encodeURIComponent(`/service-auth${path}`)}`,
        );
      }
    });

    it('refuses an API token with a page saying to log in (403 session_required)', async () => {
      const { token } = await t.auth.tokens.create('ada@example.com', { name: 'ci' });
      for (const path of ['/password', '/email', '/delete-account', '/sessions']) {
        const response = await pageGet(t.app, path).set('Authorization', `Bearer ${token}`).expect(403);
        expect(response.headers['content-type'], path).to.match(/^text\/html/);
        expect(response.text).to.contain('<h1>Log in first</h1>').and.not.contain('<form');
      }
    });
  });

  describe('changing the password', () => {
    it('changes it, keeps this browser logged in with a new session, ends the others, and says so on the sessions page', async () => {
      const cookie = await logIn();
      const other = await logIn(IPHONE);
      const response = await formPost(t.app, '/password', { current_password: PASSWORD, password: NEW_PASSWORD })
        .set('Cookie', cookie)
        .expect(303);
      expect(response.headers['location']).to.equal('/service-auth/sessions?password=changed');
      const renewed = sessionCookieFrom(response)!;
      expect(renewed)
        .to.match(/^service_auth_session=/)
        .and.not.equal(cookie);
      expect(await isLoggedIn(renewed)).to.equal(true);
      expect(await isLoggedIn(other)).to.equal(false);

      const sessions = await pageGet(t.app, '/sessions?password=changed').set('Cookie', renewed).expect(200);
      expect(sessions.text)
        .to.contain('role="status"')
        .and.contain('Your password has been changed. Every other session was ended.');
      expect(sessions.text.match(/<tr>/g)).to.have.length(2); // the heading's row, and this session's
      expect(sessions.text).not.to.contain('End every other session');

      await request(t.app)
        .post('/service-auth/login')
        .send({ email: 'ada@example.com', password: PASSWORD })
        .expect(401);
      await request(t.app)
        .post('/service-auth/login')
        .send({ email: 'ada@example.com', password: NEW_PASSWORD })
        .expect(200);
    });

    it('a wrong current password: 401, said beside that field, focused, nothing echoed', async () => {
      const response = await formPost(t.app, '/password', {
        current_password: 'Not-My-Password-1',
        password: NEW_PASSWORD,
      })
        .set('Cookie', await logIn())
        .expect(401);
      expect(response.headers['content-type']).to.match(/^text\/html/);
      expect(tagWithId(response.text, 'current_password'))
        .to.contain('aria-invalid="true"')
        .and.contain('aria-describedby="current_password-error"')
        .and.contain('autofocus');
      expect(response.text).to.match(/id="current_password-error">.*This is not your current password\./);
      expect(tagWithId(response.text, 'password')).not.to.contain('aria-invalid');
      expect(response.text)
        .not.to.contain('Not-My-Password-1')
        .and.not.contain(NEW_PASSWORD)
        .and.not.contain('The email or password');
      await request(t.app)
        .post('/service-auth/login')
        .send({ email: 'ada@example.com', password: PASSWORD })
        .expect(200);
    });

    it('a new password that breaks the rules: 422, every failed rule beside it; empty fields: 400, each marked', async () => {
      const cookie = await logIn();
      const weak = await formPost(t.app, '/password', { current_password: PASSWORD, password: 'weak' })
        .set('Cookie', cookie)
        .expect(422);
      expect(tagWithId(weak.text, 'password'))
        .to.contain('aria-invalid="true"')
        .and.contain('autofocus')
        .and.contain('aria-describedby="password-error password-hint"');
      expect(weak.text).to.contain('<li>at least 12 characters</li>').and.not.contain(PASSWORD);
      const empty = await formPost(t.app, '/password', { current_password: '', password: '' })
        .set('Cookie', cookie)
        .expect(400);
      expect(tagWithId(empty.text, 'current_password')).to.contain('aria-invalid="true"').and.contain('autofocus');
      expect(tagWithId(empty.text, 'password')).to.contain('aria-invalid="true"');
      expect(await isLoggedIn(cookie)).to.equal(true);
    });

    it('a form sent after the session ended: 401, a page with a link to log in and come back', async () => {
      const response = await formPost(t.app, '/password', { current_password: PASSWORD, password: NEW_PASSWORD })
        .set('Cookie', 'service_auth_session=ended')
        .expect(401);
      expect(response.headers['content-type']).to.match(/^text\/html/);
      expect(response.text)
        .to.contain('<h1>Please log in again</h1>')
        .and.contain('href="/service-auth/login?next=%2Fservice-auth%2Fpassword"');
    });

    it('a form sent from another site: 403, a page of its own, nothing changed', async () => {
      const cookie = await logIn();
      const response = await formPost(t.app, '/password', { current_password: PASSWORD, password: NEW_PASSWORD })
        .set('Cookie', cookie)
        .set('Sec-Fetch-Site', 'cross-site')
        .expect(403);
      expect(response.text).to.contain('<h1>Request refused</h1>').and.contain('href="/service-auth/password"');
      await request(t.app)
        .post('/service-auth/login')
        .send({ email: 'ada@example.com', password: PASSWORD })
        .expect(200);
    });

    it('API clients still get JSON from POST /password', async () => {
      const response = await request(t.app)
        .post('/service-auth/password')
        .set('Cookie', await logIn())
        .send({ current_password: PASSWORD, password: NEW_PASSWORD })
        .expect(200);
      expect(response.body.user.email).to.equal('ada@example.com');
    });
  });

  describe('the sessions page', () => {
    it('lists each session with its device, its times and a button to end it, this one marked', async () => {
      const cookie = await logIn();
      await logIn(IPHONE);
      const page = await pageGet(t.app, '/sessions').set('Cookie', cookie).expect(200);
      const rows = page.text.split('<tr>').slice(2);
      expect(rows).to.have.length(2);
      expect(rows[0])
        .to.contain('Firefox on Linux <strong>(this device)</strong>')
        .and.contain('aria-label="End this session (log out)">Log out</button>');
      expect(rows[1]).to.contain('Safari on iOS').and.not.contain('this device');
      expect(rows[1]).to.match(
        /aria-label="End the session of Safari on iOS started \d{4}-\d\d-\d\d \d\d:\d\d">End<\/button>/,
      );
      expect(rows[1]).to.match(/<time datetime="\d{4}-\d\d-\d\dT[\d:.]+Z">\d{4}-\d\d-\d\d \d\d:\d\d<\/time>/);
      expect(page.text)
        .to.contain('<form method="post" action="/service-auth/sessions/end-others">')
        .and.contain('End every other session');
      expect(page.text).to.contain('Where ada@example.com is logged in (times in UTC)');
    });

    it('ends another session: 303 back to the list, saying so; that browser is logged out', async () => {
      const cookie = await logIn();
      const other = await logIn(IPHONE);
      const [, id] = (
        await request(t.app).get('/service-auth/api/sessions').set('Cookie', cookie).expect(200)
      ).body.sessions.map((s: { id: string }) => s.id);
      const response = await formPost(t.app, `/sessions/${id}/end`, {}).set('Cookie', cookie).expect(303);
      expect(response.headers['location']).to.equal('/service-auth/sessions?ended=one');
      expect(await isLoggedIn(other)).to.equal(false);
      expect(await isLoggedIn(cookie)).to.equal(true);
      const page = await pageGet(t.app, '/sessions?ended=one').set('Cookie', cookie).expect(200);
      expect(page.text)
        .to.contain('The session was ended: that device is logged out.')
        .and.not.contain('Safari on iOS');
    });

    it("ends this browser's own session: logged out, to the login page, the cookie cleared", async () => {
      const cookie = await logIn();
      const [id] = (
        await request(t.app).get('/service-auth/api/sessions').set('Cookie', cookie).expect(200)
      ).body.sessions.map((s: { id: string }) => s.id);
      const response = await formPost(t.app, `/sessions/${id}/end`, {}).set('Cookie', cookie).expect(303);
      expect(response.headers['location']).to.equal('/service-auth/login');
      expect(sessionCookieFrom(response)).to.equal('service_auth_session=');
      expect(await isLoggedIn(cookie)).to.equal(false);
    });

    it('ends every other session with one button', async () => {
      const cookie = await logIn();
      const others = [await logIn(IPHONE), await logIn('curl/8.5.0')];
      const response = await formPost(t.app, '/sessions/end-others', {}).set('Cookie', cookie).expect(303);
      expect(response.headers['location']).to.equal('/service-auth/sessions?ended=others');
      for (const other of others) expect(await isLoggedIn(other)).to.equal(false);
      const page = await pageGet(t.app, '/sessions?ended=others').set('Cookie', cookie).expect(200);
      expect(page.text).to.contain('Every other session was ended').and.not.contain('End every other session');
    });

    it("a session already ended, unknown, or another user's: 404, the list again saying so", async () => {
      await t.auth.users.create({ email: 'bob@example.com', password: PASSWORD });
      const bob = sessionCookieFrom(
        await request(t.app)
          .post('/service-auth/login')
          .send({ email: 'bob@example.com', password: PASSWORD })
          .expect(200),
      )!;
      const [bobs] = (
        await request(t.app).get('/service-auth/api/sessions').set('Cookie', bob).expect(200)
      ).body.sessions.map((s: { id: string }) => s.id);
      const cookie = await logIn();
      for (const id of [bobs, 'AAAAAAAAAAAAAAAA', 'nope']) {
        const response = await formPost(t.app, `/sessions/${id}/end`, {}).set('Cookie', cookie).expect(404);
        expect(response.headers['content-type']).to.match(/^text\/html/);
        expect(response.text)
          .to.contain('<h1>Your sessions</h1>')
          .and.contain('role="alert"')
          .and.contain('That session has already ended, or is not yours.');
      }
      expect(await isLoggedIn(bob)).to.equal(true);
    });

    it('takes only a browser’s form: anything else is the 404 problem of paths nobody serves', async () => {
      const cookie = await logIn();
      const json = await request(t.app)
        .post('/service-auth/sessions/end-others')
        .set('Cookie', cookie)
        .send({})
        .expect(404);
      expect(json.headers['content-type']).to.match(/^application\/problem\+json/);
      expect(json.body.code).to.equal('not_found');
      await request(t.app)
        .post('/service-auth/delete-account')
        .set('Cookie', cookie)
        .send({ password: PASSWORD })
        .expect(404);
      expect(await isLoggedIn(cookie)).to.equal(true);
    });

    it('a button pressed after the session ended: 401, a page with a link to log in and come back', async () => {
      const response = await formPost(t.app, '/sessions/end-others', {})
        .set('Cookie', 'service_auth_session=ended')
        .expect(401);
      expect(response.text)
        .to.contain('<h1>Please log in again</h1>')
        .and.contain('href="/service-auth/login?next=%2Fservice-auth%2Fsessions"');
    });
  });

  describe('changing the email address', () => {
    it('mails a link to the new address and a notice to the old; the page says so (202)', async () => {
      const response = await formPost(t.app, '/email', { email: 'ada.new@example.com', password: PASSWORD })
        .set('Cookie', await logIn())
        .expect(202);
      expect(response.text)
        .to.contain('role="status"')
        .and.contain('A link to confirm the change is on its way to ada.new@example.com.');
      expect(tagWithId(response.text, 'email')).to.contain('value=""');
      const mails = await outboxMails(t.outbox, 2);
      expect(mails.map((m) => m.to).sort()).to.deep.equal(['ada.new@example.com', 'ada@example.com']);
      expect(mails.find((m) => m.to === 'ada.new@example.com')!.text).to.match(/\/service-auth\/confirm-email\?token=/);
    });

    it('a wrong password: 401 beside it, the new address kept; a taken or invalid address: beside the address', async () => {
      const cookie = await logIn();
      const wrong = await formPost(t.app, '/email', { email: 'ada.new@example.com', password: 'Not-My-Password-1' })
        .set('Cookie', cookie)
        .expect(401);
      expect(wrong.text).to.match(/id="password-error">.*This is not your current password\./);
      expect(tagWithId(wrong.text, 'password')).to.contain('autofocus');
      expect(tagWithId(wrong.text, 'email')).to.contain('value="ada.new@example.com"').and.not.contain('aria-invalid');
      expect(wrong.text).not.to.contain('Not-My-Password-1');

      await t.auth.users.create({ email: 'bob@example.com', password: PASSWORD });
      const taken = await formPost(t.app, '/email', { email: 'bob@example.com', password: PASSWORD })
        .set('Cookie', cookie)
        .expect(409);
      expect(taken.text).to.match(/id="email-error">.*Another account uses this address\. Choose another one\./);
      expect(tagWithId(taken.text, 'email')).to.contain('autofocus').and.contain('value="bob@example.com"');
      const invalid = await formPost(t.app, '/email', { email: 'not an address', password: PASSWORD })
        .set('Cookie', cookie)
        .expect(422);
      expect(invalid.text).to.match(/id="email-error">.*Enter an email address/);
      expect(invalid.text).not.to.contain(PASSWORD);
    });
  });

  describe('deleting the account', () => {
    it('a wrong password: 401 beside it, nothing deleted', async () => {
      const cookie = await logIn();
      const response = await formPost(t.app, '/delete-account', { password: 'Not-My-Password-1' })
        .set('Cookie', cookie)
        .expect(401);
      expect(response.text)
        .to.match(/id="password-error">.*This is not your current password\./)
        .and.not.contain('Not-My-Password-1');
      expect(tagWithId(response.text, 'password')).to.contain('autofocus');
      expect(await isLoggedIn(cookie)).to.equal(true);
    });

    it('deletes it: 303 home, the cookie cleared, the login refused, the address free to register again', async () => {
      const cookie = await logIn();
      const other = await logIn(IPHONE);
      const response = await formPost(t.app, '/delete-account', { password: PASSWORD })
        .set('Cookie', cookie)
        .expect(303);
      expect(response.headers['location']).to.equal('/');
      expect(sessionCookieFrom(response)).to.equal('service_auth_session=');
      expect(await isLoggedIn(cookie)).to.equal(false);
      expect(await isLoggedIn(other)).to.equal(false);
      expect(await t.auth.users.findByEmail('ada@example.com')).to.equal(null);
      await request(t.app)
        .post('/service-auth/login')
        .send({ email: 'ada@example.com', password: PASSWORD })
        .expect(401);
      await formPost(t.app, '/register', { email: 'ada@example.com', password: PASSWORD }).expect(303);
    });

    it('a browser that navigates to a page after its account was deleted goes to the login page', async () => {
      const cookie = await logIn();
      await formPost(t.app, '/delete-account', { password: PASSWORD }).set('Cookie', cookie).expect(303);
      await request(t.app).get('/service-auth/sessions').set('Accept', HTML).set('Cookie', cookie).expect(303);
    });
  });
});

describe('the account pages of a logged-in person: too many wrong passwords', () => {
  it('counts a wrong current password as a failed login: past the limit, 429, a page with a link back to the form', async () => {
    const t = await createTestApp({ SERVICE_AUTH_RATE_LIMIT_LOGIN_FAILURES: '1 per minute' });
    try {
      await t.auth.users.create({ email: 'ada@example.com', password: PASSWORD });
      const cookie = sessionCookieFrom(
        await request(t.app)
          .post('/service-auth/login')
          .send({ email: 'ada@example.com', password: PASSWORD })
          .expect(200),
      )!;
      const wrong = () =>
        formPost(t.app, '/password', { current_password: 'Not-My-Password-1', password: NEW_PASSWORD }).set(
          'Cookie',
          cookie,
        );
      await wrong().expect(401);
      const refused = await wrong().expect(429);
      expect(refused.headers['content-type']).to.match(/^text\/html/);
      expect(refused.text)
        .to.contain('<h1>Too many attempts</h1>')
        .and.contain('href="/service-auth/password"')
        .and.not.contain('<form');
    } finally {
      await t.auth.close();
    }
  });
});
