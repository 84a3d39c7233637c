import { expect } from 'chai';
import { mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import request from 'supertest';
import { defaultPageTexts, type PageTexts } from '../../src/index.js';
import { createTestApp, PASSWORD, sessionCookieFrom, temporaryDirectory, type TestApp } from '../helpers/app.js';
import { formPost, pageGet } from '../helpers/forms.js';
import { shout, wordsOutsideTexts } from './page-words.js';

describe('replacing the pages', () => {
  let t: TestApp | undefined;
  let views: string | undefined;
  afterEach(async () => {
    await t?.auth.close();
    if (views) await rm(views, { recursive: true, force: true });
    t = views = undefined;
  });

  /**
   * An app whose view engine renders `{{path.to.local}}` placeholders, with the given views under
   * `service-auth/`: enough of a template language to see which locals a view receives.
   */
  async function appWithViews(files: Record<string, string>): Promise<TestApp> {
    views = await temporaryDirectory();
    await mkdir(join(views, 'service-auth'));
    for (const [name, template] of Object.entries(files))
      await writeFile(join(views, 'service-auth', `${name}.html`), template);
    return createTestApp({ views, 'view engine': 'html', SERVICE_AUTH_RATE_LIMIT_ENABLED: false }, (app) => {
      app.engine('html', (file, locals, callback) => {
        readFile(file, 'utf8')
          .then((template) =>
            callback(
              null,
              template.replace(/\{\{([\w.]+)\}\}/g, (_, path: string) =>
                String(path.split('.').reduce<unknown>((v, k) => (v as Record<string, unknown>)?.[k], locals)),
              ),
            ),
          )
          .catch(callback);
      });
    });
  }

  it("renders the application's own view service-auth/<page>, keeping the built-in page for the others", async () => {
    t = await appWithViews({ login: '<p>Our own login page, next={{next}}, title={{texts.login.title}}</p>' });
    const login = await request(t.app).get('/service-auth/login?next=/x').expect(200);
    expect(login.text).to.equal('<p>Our own login page, next=/x, title=Log in</p>');
    // The application's page may load what it likes: only the framing rule is kept.
    expect(login.headers['content-security-policy']).to.equal("frame-ancestors 'none'");
    expect(login.headers['cache-control']).to.equal('no-store');
    const forgot = await request(t.app).get('/service-auth/forgot').expect(200);
    expect(forgot.text).to.contain('<form method="post"');
    expect(forgot.headers['content-security-policy']).to.contain("default-src 'none'");
  });

  it('gives its views the errors of a refused form, the new token, and the refusal pages', async () => {
    t = await appWithViews({
      register: '<p>email error: {{errors.email.message}}</p>',
      tokens: '<p>{{email}} created {{created.name}}</p>',
      problem: '<p>{{code}}: {{title}} ({{link.href}})</p>',
    });
    const register = await formPost(t.app, '/register', { email: 'nope', password: PASSWORD }).expect(422);
    expect(register.text).to.equal('<p>email error: Enter an email address, like name@example.com.</p>');

    await t.auth.users.create({ email: 'ada@example.com', password: PASSWORD });
    const cookie = sessionCookieFrom(
      await request(t.app).post('/service-auth/login').send({ email: 'ada@example.com', password: PASSWORD }),
    )!;
    const created = await formPost(t.app, '/api/tokens', { name: 'ci' }).set('Cookie', cookie).expect(201);
    expect(created.text).to.equal('<p>ada@example.com created ci</p>');

    const refused = await formPost(t.app, '/login', { email: 'a@example.com', password: 'x' })
      .set('Sec-Fetch-Site', 'cross-site')
      .expect(403);
    expect(refused.text).to.equal('<p>csrf_rejected: Request refused (/service-auth/login)</p>');
  });

  it('takes every word from auth.texts, which an application may replace', async () => {
    t = await createTestApp({ SERVICE_AUTH_RATE_LIMIT_ENABLED: false });
    const texts: PageTexts = {
      ...defaultPageTexts,
      lang: 'fr',
      email: 'Adresse e-mail',
      login: { ...defaultPageTexts.login, title: 'Connexion', submit: 'Se connecter' },
      errors: { ...defaultPageTexts.errors, invalidCredentials: 'Adresse ou mot de passe incorrect.' },
    };
    t.auth.texts = texts;
    const page = await pageGet(t.app, '/login').expect(200);
    expect(page.text)
      .to.contain('<html lang="fr">')
      .and.contain('<title>Connexion</title>')
      .and.contain('<label for="email">Adresse e-mail</label>')
      .and.contain('>Se connecter</button>');
    const refused = await formPost(t.app, '/login', { email: 'ada@example.com', password: 'Wrong-Password-1' }).expect(
      401,
    );
    expect(refused.text)
      .to.contain('Adresse ou mot de passe incorrect.')
      .and.not.contain(defaultPageTexts.errors.invalidCredentials);
    // The JSON API keeps its own words.
    const api = await request(t.app)
      .post('/service-auth/login')
      .send({ email: 'ada@example.com', password: 'Wrong-Password-1' })
      .expect(401);
    expect(api.body.detail).to.equal('The email or password is not right');
  });

  it("rewording one ServiceAuth's pages leaves another's alone; the shared defaults cannot be changed in place", async () => {
    t = await createTestApp({ SERVICE_AUTH_RATE_LIMIT_ENABLED: false });
    const other = await createTestApp({ SERVICE_AUTH_RATE_LIMIT_ENABLED: false });
    try {
      expect(() => {
        t!.auth.texts.login.title = 'Sign in';
      }).to.throw(TypeError);
      expect(() => {
        t!.auth.texts.errors.rules.digit = () => 'a number';
      }).to.throw(TypeError);
      t.auth.texts = { ...defaultPageTexts, login: { ...defaultPageTexts.login, title: 'Sign in' } };
      expect((await pageGet(t.app, '/login').expect(200)).text).to.contain('<title>Sign in</title>');
      expect((await pageGet(other.app, '/login').expect(200)).text).to.contain('<title>Log in</title>');
      expect(defaultPageTexts.login.title).to.equal('Log in');
    } finally {
      await other.auth.close();
    }
  });

  it('has no words of its own outside the texts', async () => {
    t = await createTestApp({ SERVICE_AUTH_RATE_LIMIT_ENABLED: false });
    t.auth.texts = shout(defaultPageTexts) as PageTexts;
    await t.auth.users.create({ email: 'ada@example.com', password: PASSWORD });
    const cookie = sessionCookieFrom(
      await request(t.app).post('/service-auth/login').send({ email: 'ada@example.com', password: PASSWORD }),
    )!;
    const { id } = await t.auth.tokens.create('ada@example.com', { name: 'CI' });
    const pages = [
      await pageGet(t.app, '/login'),
      await pageGet(t.app, '/register'),
      await pageGet(t.app, '/forgot'),
      await pageGet(t.app, '/reset?token=x'),
      await formPost(t.app, '/register', { email: 'x', password: 'y' }),
      await formPost(t.app, '/api/tokens', { name: 'NEW' }).set('Cookie', cookie),
      await pageGet(t.app, `/tokens/${id}/revoke`).set('Cookie', cookie),
      await formPost(t.app, '/login', { email: 'x', password: 'y' }).set('Sec-Fetch-Site', 'cross-site'),
    ];
    for (const page of pages) expect(wordsOutsideTexts(page.text), page.text).to.deep.equal([]);
  });
});
