/**
 * The pages of the mailed links that confirm an address (`/confirm`, `/confirm-email`), registering
 * and logging in with SERVICE_AUTH_EMAIL_CONFIRMATION on, driven as a browser drives them.
 */
import { expect } from 'chai';
import { rm } from 'node:fs/promises';
import request from 'supertest';
import {
  createTestApp,
  outboxMails,
  PASSWORD,
  sessionCookieFrom,
  temporaryDirectory,
  type TestApp,
} from '../helpers/app.js';
import { formPost, pageGet, tagWithId } from '../helpers/forms.js';

type Mail = Awaited<ReturnType<typeof outboxMails>>[number];

/** The token of a link to `page` (`confirm`, `confirm-email`) in a mail. */
function linkToken(mail: Mail, page: string): string {
  const match = new RegExp(`/service-auth/${page}\\?token=([A-Za-z0-9_-]+)`).exec(mail.text);
  if (!match) throw new Error(`no ${page} link in: ${mail.text}`);
  return match[1]!;
}

describe('the confirmation pages', () => {
  let t: TestApp;
  let outbox: string;
  beforeEach(async () => {
    outbox = await temporaryDirectory();
    t = await createTestApp({
      SERVICE_AUTH_EMAIL_CONFIRMATION: true,
      SERVICE_AUTH_RATE_LIMIT_ENABLED: false,
      SERVICE_AUTH_MAIL_OUTBOX: outbox,
    });
  });
  afterEach(async () => {
    await t.auth.close();
    await rm(outbox, { recursive: true, force: true });
  });

  /** Mails sent so far, once the work done after the answers (registrations, resends) is over. */
  const mailsTo = async (to: string) => {
    await t.parts.background.flush();
    return (await outboxMails(outbox, 0)).filter((mail) => mail.to === to);
  };
  const register = async (email: string) => {
    const response = await formPost(t.app, '/register', { email, password: PASSWORD }).expect(202);
    await t.parts.background.flush();
    return response;
  };

  it('registering: 202, the same "check your mail" page for a new address and a taken one, and no session', async () => {
    await t.auth.users.create({ email: 'taken@example.com', password: PASSWORD });
    const fresh = await register('new@example.com');
    const taken = await register('taken@example.com');
    expect(fresh.text)
      .to.contain('role="status"')
      .and.contain('Check your mail: a link to confirm the address is on its way.');
    expect(taken.text).to.equal(fresh.text);
    expect(fresh.headers['set-cookie']).to.equal(undefined);
    expect(tagWithId(fresh.text, 'email')).to.contain('value=""');
    expect(fresh.text).not.to.contain(PASSWORD);
    expect((await mailsTo('new@example.com')).map((mail) => mail.subject)).to.deep.equal([
      'Confirm your email address',
    ]);
  });

  it('logging in before confirming: 403, said above the form, with a button mailing a new link to the typed address', async () => {
    await register('new@example.com');
    const refused = await formPost(t.app, '/login', { email: 'new@example.com', password: PASSWORD }).expect(403);
    expect(refused.headers['content-type']).to.match(/^text\/html/);
    expect(refused.text).to.contain('role="alert"').and.contain('Confirm your email address first');
    expect(refused.text)
      .to.contain('<form method="post" action="/service-auth/confirm/resend">')
      .and.contain('<input type="hidden" name="email" value="new@example.com">');
    expect(tagWithId(refused.text, 'email')).to.contain('value="new@example.com"');
    expect(refused.text).not.to.contain(PASSWORD);
    // A wrong password says nothing of the account's state.
    const wrong = await formPost(t.app, '/login', { email: 'new@example.com', password: 'Wrong-Password-1' }).expect(
      401,
    );
    expect(wrong.text).not.to.contain('/confirm/resend');

    const sent = await formPost(t.app, '/confirm/resend', { email: 'new@example.com' }).expect(202);
    expect(sent.text).to.contain('role="status"').and.contain('a new link is on its way');
    expect(await mailsTo('new@example.com')).to.have.length(2);
  });

  it('the link: a page with a button (opening it changes nothing), then confirmed, then the login works', async () => {
    await register('new@example.com');
    const token = linkToken((await mailsTo('new@example.com'))[0]!, 'confirm');
    for (let i = 0; i < 2; i++) {
      const page = await pageGet(t.app, `/confirm?token=${token}`).expect(200);
      expect(page.text)
        .to.contain('<form method="post" action="/service-auth/confirm">')
        .and.contain(`<input type="hidden" name="token" value="${token}">`);
      expect(page.text).to.contain('>Confirm my address</button>');
    }
    expect((await t.auth.users.findByEmail('new@example.com'))!.email_confirmed).to.equal(false);

    const confirmed = await formPost(t.app, '/confirm', { token }).expect(200);
    expect(confirmed.headers['content-type']).to.match(/^text\/html/);
    expect(confirmed.text)
      .to.contain('The address new@example.com is confirmed. You can log in now.')
      .and.contain('href="/service-auth/login"');
    await formPost(t.app, '/login', { email: 'new@example.com', password: PASSWORD }).expect(303);

    // Used up: the page and the button say so, and offer a new link.
    for (const response of [
      await pageGet(t.app, `/confirm?token=${token}`).expect(200),
      await formPost(t.app, '/confirm', { token }).expect(400),
    ]) {
      expect(response.text)
        .to.contain('role="alert"')
        .and.contain('This confirmation link is unknown, expired or already used.');
      expect(response.text)
        .to.contain('<form method="post" action="/service-auth/confirm/resend" novalidate>')
        .and.not.contain('name="token"');
    }
  });

  it('without a token, or with a button that sent none: the form asking for a new link', async () => {
    const page = await pageGet(t.app, '/confirm').expect(200);
    expect(page.text).to.contain('action="/service-auth/confirm/resend"').and.not.contain('role="alert"');
    const missing = await formPost(t.app, '/confirm', {}).expect(400);
    expect(missing.text).to.contain('This confirmation link is unknown, expired or already used.');
  });

  it('asking for a new link: the same 202 page for every address; a malformed one beside the field', async () => {
    await t.auth.users.create({ email: 'confirmed@example.com', password: PASSWORD });
    const unknown = await formPost(t.app, '/confirm/resend', { email: 'nobody@example.com' }).expect(202);
    const confirmed = await formPost(t.app, '/confirm/resend', { email: 'confirmed@example.com' }).expect(202);
    expect(confirmed.text).to.equal(unknown.text);
    expect(await mailsTo('confirmed@example.com')).to.deep.equal([]);

    const invalid = await formPost(t.app, '/confirm/resend', { email: 'not an address' }).expect(422);
    expect(invalid.text).to.match(/id="email-error">.*Enter an email address/);
    expect(tagWithId(invalid.text, 'email')).to.contain('value="not an address"').and.contain('autofocus');
  });

  it('a button pressed on another site: 403, a page with a link back to the link’s page', async () => {
    const response = await formPost(t.app, '/confirm', { token: 'abc' })
      .set('Sec-Fetch-Site', 'cross-site')
      .expect(403);
    expect(response.text).to.contain('<h1>Request refused</h1>').and.contain('href="/service-auth/confirm?token=abc"');
  });

  it('API clients still get JSON from POST /confirm and /confirm/resend', async () => {
    const json = await request(t.app).post('/service-auth/confirm').send({ token: 'nope' }).expect(400);
    expect(json.body.code).to.equal('invalid_confirmation_token');
    await request(t.app).post('/service-auth/confirm/resend').send({ email: 'a@example.com' }).expect(202);
  });

  it('logging in to a disabled account: 403, said above the form', async () => {
    await t.auth.users.create({ email: 'off@example.com', password: PASSWORD });
    await t.auth.users.disable('off@example.com');
    const refused = await formPost(t.app, '/login', { email: 'off@example.com', password: PASSWORD }).expect(403);
    expect(refused.text).to.contain('role="alert"').and.contain('This account has been disabled.');
    expect(refused.text).not.to.contain('/confirm/resend');
  });

  describe('confirming an email change', () => {
    const askForChange = async (to: string) => {
      await t.auth.users.create({ email: 'ada@example.com', password: PASSWORD });
      const cookie = sessionCookieFrom(
        await request(t.app)
          .post('/service-auth/login')
          .send({ email: 'ada@example.com', password: PASSWORD })
          .expect(200),
      )!;
      await formPost(t.app, '/email', { email: to, password: PASSWORD }).set('Cookie', cookie).expect(202);
      return { cookie, token: linkToken((await mailsTo(to))[0]!, 'confirm-email') };
    };

    it('the link: a button (opening it changes nothing), then the address is changed', async () => {
      const { cookie, token } = await askForChange('ada.new@example.com');
      const page = await pageGet(t.app, `/confirm-email?token=${token}`).expect(200);
      expect(page.text)
        .to.contain('<form method="post" action="/service-auth/confirm-email">')
        .and.contain(`value="${token}"`);
      expect((await request(t.app).get('/service-auth/me').set('Cookie', cookie).expect(200)).body.user.email).to.equal(
        'ada@example.com',
      );

      const changed = await formPost(t.app, '/confirm-email', { token }).expect(200);
      expect(changed.text).to.contain('Your account’s email address is now ada.new@example.com.');
      expect((await request(t.app).get('/service-auth/me').set('Cookie', cookie).expect(200)).body.user.email).to.equal(
        'ada.new@example.com',
      );

      for (const response of [
        await pageGet(t.app, `/confirm-email?token=${token}`).expect(200),
        await formPost(t.app, '/confirm-email', { token }).expect(400),
      ]) {
        expect(response.text)
          .to.contain('role="alert"')
          .and.contain('This link is unknown, expired or already used.')
          .and.contain('href="/service-auth/email"');
        expect(response.text).not.to.contain('<form');
      }
    });

    it('an address another account took meanwhile: 409, said so', async () => {
      const { token } = await askForChange('wanted@example.com');
      await t.auth.users.create({ email: 'wanted@example.com', password: PASSWORD });
      const response = await formPost(t.app, '/confirm-email', { token }).expect(409);
      expect(response.headers['content-type']).to.match(/^text\/html/);
      expect(response.text)
        .to.contain('Another account now uses this address, so your address was not changed.')
        .and.contain('href="/service-auth/email"');
      expect((await t.auth.users.get('ada@example.com')).email).to.equal('ada@example.com');
    });
  });
});
