/**
 * The account lifecycle's pages (password, sessions, email, deletion, the confirmation links, the
 * login's new refusals) as an application replaces them: every documented local on every render,
 * and every word from `auth.texts`.
 */
import { expect } from 'chai';
import { mkdir, rm, writeFile } from 'node:fs/promises';
import { basename, join } from 'node:path';
import request from 'supertest';
import { defaultPageTexts, type PageLocalsByName, type PageTexts } from '../../src/index.js';
import {
  createTestApp,
  outboxMails,
  PASSWORD,
  sessionCookieFrom,
  temporaryDirectory,
  type TestApp,
} from '../helpers/app.js';
import { formPost, pageGet } from '../helpers/forms.js';
import { shout, wordsOutsideTexts } from './page-words.js';

/** The locals each page is documented to receive (docs/pages.md); the compiler checks them against the exported types. */
const DOCUMENTED = {
  login: [
    'prefix',
    'texts',
    'notice',
    'errors',
    'email',
    'next',
    'token',
    'tokenUsable',
    'passwordHint',
    'confirmationPending',
    'providers',
  ],
  register: [
    'prefix',
    'texts',
    'notice',
    'errors',
    'email',
    'next',
    'token',
    'tokenUsable',
    'passwordHint',
    'confirmationPending',
    'providers',
  ],
  forgot: [
    'prefix',
    'texts',
    'notice',
    'errors',
    'email',
    'next',
    'token',
    'tokenUsable',
    'passwordHint',
    'confirmationPending',
    'providers',
  ],
  reset: [
    'prefix',
    'texts',
    'notice',
    'errors',
    'email',
    'next',
    'token',
    'tokenUsable',
    'passwordHint',
    'confirmationPending',
    'providers',
  ],
  tokens: [
    'prefix',
    'texts',
    'email',
    'tokens',
    'created',
    'notice',
    'errors',
    'values',
    'maxExpiryDays',
    'defaultExpiryDays',
    'orgs',
  ],
  revoke: ['prefix', 'texts', 'token'],
  password: ['prefix', 'texts', 'email', 'notice', 'errors', 'passwordHint'],
  sessions: ['prefix', 'texts', 'email', 'sessions', 'notice'],
  'security-log': ['prefix', 'texts', 'email', 'events', 'next'],
  mfa: ['prefix', 'texts', 'email', 'state', 'setup', 'recoveryCodes', 'recoveryCodesLeft', 'errors', 'notice'],
  'login-mfa': ['prefix', 'texts', 'ticket', 'next', 'errors', 'notice'],
  passkeys: ['prefix', 'texts', 'email', 'passkeys', 'notice'],
  identities: ['prefix', 'texts', 'email', 'identities', 'providers', 'notice'],
  email: ['prefix', 'texts', 'email', 'newEmail', 'notice', 'errors'],
  'delete-account': ['prefix', 'texts', 'email', 'errors'],
  confirm: ['prefix', 'texts', 'state', 'token', 'email', 'errors'],
  'confirm-email': ['prefix', 'texts', 'state', 'token', 'email'],
  problem: ['prefix', 'texts', 'code', 'title', 'text', 'link'],
  orgs: ['prefix', 'texts', 'email', 'orgs', 'mayCreate', 'notice', 'errors', 'values'],
  org: [
    'prefix',
    'texts',
    'email',
    'org',
    'roles',
    'members',
    'assignable',
    'invitations',
    'mayInvite',
    'notice',
    'errors',
    'values',
  ],
  invitation: ['prefix', 'texts', 'state', 'token', 'invitation', 'email', 'back', 'notice'],
} satisfies { [N in keyof PageLocalsByName]: (keyof PageLocalsByName[N])[] };

type Mail = Awaited<ReturnType<typeof outboxMails>>[number];
const linkToken = (mail: Mail, page: string) =>
  new RegExp(`/service-auth/${page}\\?token=([A-Za-z0-9_-]+)`).exec(mail.text)![1]!;

describe('the account lifecycle pages, replaced or reworded', () => {
  let t: TestApp;
  let views: string;
  let outbox: string;
  const renders: { page: string; locals: Record<string, unknown> }[] = [];
  const settings = () => ({
    SERVICE_AUTH_EMAIL_CONFIRMATION: true,
    SERVICE_AUTH_RATE_LIMIT_ENABLED: false,
    SERVICE_AUTH_MAIL_OUTBOX: outbox,
  });

  beforeEach(async () => {
    views = await temporaryDirectory();
    outbox = await temporaryDirectory();
    renders.length = 0;
  });
  afterEach(async () => {
    await t.auth.close();
    await rm(views, { recursive: true, force: true });
    await rm(outbox, { recursive: true, force: true });
  });

  /** The first mail to `to`, once the work after the answers is done. */
  const mailTo = async (to: string) => {
    await t.parts.background.flush();
    return (await outboxMails(outbox, 0)).find((mail) => mail.to === to)!;
  };

  /**
   * Every state of every lifecycle page, as a browser reaches it: Ada logged in (`cookie`) with a
   * second session, an email change asked for, and Nova registered and unconfirmed. Returns the
   * responses.
   */
  async function visitEveryState(): Promise<request.Response[]> {
    await t.auth.users.create({ email: 'ada@example.com', password: PASSWORD });
    await t.auth.users.create({ email: 'bob@example.com', password: PASSWORD });
    const cookie = sessionCookieFrom(
      await request(t.app)
        .post('/service-auth/login')
        .send({ email: 'ada@example.com', password: PASSWORD })
        .expect(200),
    )!;
    await request(t.app).post('/service-auth/login').send({ email: 'ada@example.com', password: PASSWORD }).expect(200);
    const { token: apiToken } = await t.auth.tokens.create('ada@example.com', { name: 'ci' });
    const as = <R extends request.Test>(test: R) => test.set('Cookie', cookie);
    const registered = await formPost(t.app, '/register', { email: 'nova@example.com', password: PASSWORD }).expect(
      202,
    );
    // Nova's user is made after the answer, as her link is mailed.
    await t.parts.background.flush();
    const responses = [
      registered,
      await formPost(t.app, '/login', { email: 'nova@example.com', password: PASSWORD }).expect(403),
      await pageGet(t.app, '/confirm').expect(200),
      await pageGet(t.app, '/confirm?token=nope').expect(200),
      await pageGet(t.app, `/confirm?token=${linkToken(await mailTo('nova@example.com'), 'confirm')}`).expect(200),
      await formPost(t.app, '/confirm', { token: linkToken(await mailTo('nova@example.com'), 'confirm') }).expect(200),
      await formPost(t.app, '/confirm/resend', { email: 'nova@example.com' }).expect(202),
      await formPost(t.app, '/confirm/resend', { email: 'nope' }).expect(422),
      await as(pageGet(t.app, '/password')).expect(200),
      await as(
        formPost(t.app, '/password', { current_password: 'Wrong-Password-1', password: 'Brand-New-Password-42' }),
      ).expect(401),
      await as(pageGet(t.app, '/sessions?ended=others')).expect(200),
      await as(formPost(t.app, '/sessions/AAAAAAAAAAAAAAAA/end', {})).expect(404),
      await as(pageGet(t.app, '/security-log')).expect(200),
      await as(pageGet(t.app, '/email')).expect(200),
      await as(formPost(t.app, '/email', { email: 'bob@example.com', password: PASSWORD })).expect(409),
      await as(formPost(t.app, '/email', { email: 'ada.new@example.com', password: PASSWORD })).expect(202),
      await pageGet(t.app, '/confirm-email?token=nope').expect(200),
      await pageGet(
        t.app,
        `/confirm-email?token=${linkToken(await mailTo('ada.new@example.com'), 'confirm-email')}`,
      ).expect(200),
      await formPost(t.app, '/confirm-email', {
        token: linkToken(await mailTo('ada.new@example.com'), 'confirm-email'),
      }).expect(200),
      await as(pageGet(t.app, '/delete-account')).expect(200),
      await as(formPost(t.app, '/delete-account', { password: 'Wrong-Password-1' })).expect(401),
      await pageGet(t.app, '/password').set('Authorization', `Bearer ${apiToken}`).expect(403),
    ];
    // Taken meanwhile: the change asked for above, to an address someone registers before it is confirmed.
    await as(formPost(t.app, '/email', { email: 'late@example.com', password: PASSWORD })).expect(202);
    await t.auth.users.create({ email: 'late@example.com', password: PASSWORD });
    responses.push(
      await formPost(t.app, '/confirm-email', {
        token: linkToken(await mailTo('late@example.com'), 'confirm-email'),
      }).expect(409),
    );
    return responses;
  }

  it('gives every page each of its documented locals, null when it has no value, never undefined', async () => {
    await mkdir(join(views, 'service-auth'));
    for (const page of Object.keys(DOCUMENTED)) await writeFile(join(views, 'service-auth', `${page}.html`), page);
    t = await createTestApp({ ...settings(), views, 'view engine': 'html' }, (app) => {
      // Records what each render is given instead of rendering.
      app.engine('html', (file, locals, callback) => {
        renders.push({ page: basename(file, '.html'), locals: locals as Record<string, unknown> });
        callback(null, `<p>${basename(file, '.html')}</p>`);
      });
    });
    await visitEveryState();

    const seen = renders.map(
      ({ page, locals }) => `${page}${typeof locals['state'] === 'string' ? `:${locals['state']}` : ''}`,
    );
    expect(seen.join(' ')).to.equal(
      'register login confirm:resend confirm:unusable confirm:ask confirm:confirmed confirm:sent confirm:resend password password sessions sessions security-log email email email ' +
        'confirm-email:unusable confirm-email:ask confirm-email:changed delete-account delete-account problem email confirm-email:taken',
    );
    for (const { page, locals } of renders) {
      for (const key of DOCUMENTED[page as keyof typeof DOCUMENTED]) {
        expect(locals, `${page}: ${key}`).to.have.property(key);
        expect(locals[key], `${page}: ${key}`).not.to.equal(undefined);
      }
    }
    expect(renders[1]!.locals).to.include({ confirmationPending: true, email: 'nova@example.com' });
    expect(renders[0]!.locals).to.include({ confirmationPending: false });
    expect(renders.find((r) => r.page === 'sessions')!.locals['sessions']).to.have.length(2);
    expect(renders.find((r) => r.page === 'security-log')!.locals['events']).to.have.length.above(2);
  });

  it('has no words of its own outside the texts', async () => {
    t = await createTestApp(settings());
    t.auth.texts = shout(defaultPageTexts) as PageTexts;
    for (const page of await visitEveryState()) expect(wordsOutsideTexts(page.text), page.text).to.deep.equal([]);
  });

  it('rewords the new pages from auth.texts', async () => {
    t = await createTestApp(settings());
    t.auth.texts = { ...defaultPageTexts, confirm: { ...defaultPageTexts.confirm, title: 'Adresse bestätigen' } };
    const page = await pageGet(t.app, '/confirm').expect(200);
    expect(page.text).to.contain('<h1>Adresse bestätigen</h1>');
  });
});
