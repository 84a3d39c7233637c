import { expect } from 'chai';
import { mkdtemp, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createTestApp, PASSWORD, type TestApp } from '../helpers/app.js';
import { cspHash, HTML } from '../helpers/forms.js';
import { startDemo, type RunningDemo } from '../helpers/processes.js';
import { expectNoInternals, PROBLEM } from '../helpers/problems.js';

describe('demo application (npm start)', () => {
  let dir: string;
  let demo: RunningDemo;

  before(async () => {
    dir = await mkdtemp(join(tmpdir(), 'service-auth-demo-'));
    demo = await startDemo(dir);
  });

  after(async () => {
    await demo?.stop();
    await rm(dir, { recursive: true, force: true });
  });

  it('serves an HTML home page at /', async () => {
    const response = await fetch(`${demo.url}/`);
    expect(response.status).to.equal(200);
    expect(response.headers.get('content-type')).to.contain('text/html');
    expect(await response.text()).to.contain('service-auth demo');
  });

  it("sends the home page with the package's page headers: no caching, no framing, no Referer, a CSP that allows only its own style", async () => {
    const home = await fetch(`${demo.url}/`);
    const login = await fetch(`${demo.url}/service-auth/login`);
    for (const name of ['cache-control', 'x-frame-options', 'referrer-policy', 'x-content-type-options']) {
      expect(home.headers.get(name), name).to.equal(login.headers.get(name)).and.not.equal(null);
    }
    const policy = home.headers.get('content-security-policy') ?? '';
    expect(policy)
      .to.contain("default-src 'none'")
      .and.contain("frame-ancestors 'none'")
      .and.contain("form-action 'self'");
    const style = /<style>([^]*?)<\/style>/.exec(await home.text())?.[1] ?? '';
    expect(policy).to.contain(`style-src ${cspHash(style)}`);
  });

  it("answers an unknown path with a 404: problem details for a program, a page for a browser, never Express's 'Cannot GET'", async () => {
    for (const [method, path] of [
      ['GET', '/nowhere'],
      ['POST', '/reports/north/x'],
      ['DELETE', '/'],
    ]) {
      const response = await fetch(`${demo.url}${path}`, { method, headers: { Accept: 'application/json' } });
      expect(response.status, `${method} ${path}`).to.equal(404);
      expect(response.headers.get('content-type'), `${method} ${path}`).to.match(PROBLEM);
      expect(await response.json()).to.include({ code: 'not_found', status: 404 });
    }
    const page = await fetch(`${demo.url}/nowhere`, { headers: { Accept: HTML } });
    expect(page.status).to.equal(404);
    expect(page.headers.get('content-type')).to.contain('text/html');
    expect(page.headers.get('x-frame-options')).to.equal('DENY');
    expect(await page.text())
      .to.contain('<html lang="en">')
      .and.not.contain('Cannot GET');
  });

  it('creates and migrates ./service-auth.sqlite on first run', async () => {
    expect((await stat(join(dir, 'service-auth.sqlite'))).isFile()).to.equal(true);
  });

  it('prints the URL and the CLI line that creates a first admin', () => {
    expect(demo.output()).to.match(/listening on http:\/\/localhost:\d+/);
    expect(demo.output()).to.contain(
      'npx service-auth auth create-user --email admin@example.com --role admin --admin',
    );
  });

  it('answers the auth API under the prefix with problem details', async () => {
    const response = await fetch(`${demo.url}/service-auth/me`);
    expect(response.status).to.equal(401);
    expect(response.headers.get('content-type')).to.contain('application/problem+json');
    expect(await response.json()).to.include({ code: 'unauthenticated', status: 401 });
  });

  describe('routes of CONTRACT section 11', () => {
    let admin: TestApp;
    const ids: Record<string, number> = {};
    const cookies: Record<string, string> = {};

    before(async () => {
      // Another instance on the demo's own database file, as an operator's CLI would be.
      admin = await createTestApp({ SERVICE_AUTH_DATABASE_URL: `sqlite:${join(dir, 'service-auth.sqlite')}` });
      for (const [name, roles, isAdmin] of [
        ['plain', [], false],
        ['boss', ['admin'], true],
        ['analyst', ['analyst'], false],
      ] as const) {
        const user = await admin.auth.users.create({
          email: `${name}@example.com`,
          password: PASSWORD,
          roles,
          isAdmin,
        });
        ids[name] = user.id;
        const response = await fetch(`${demo.url}/service-auth/login`, {
          method: 'POST',
          headers: { 'Content-Type': 'application/json' },
          body: JSON.stringify({ email: `${name}@example.com`, password: PASSWORD }),
        });
        expect(response.status).to.equal(200);
        cookies[name] = response.headers.get('set-cookie')!.split(';')[0]!;
      }
    });
    after(() => admin?.auth.close());

    const get = async (path: string, who?: string) => {
      const response = await fetch(`${demo.url}${path}`, {
        headers: who ? { Cookie: cookies[who]! } : {},
        redirect: 'manual',
      });
      const type = response.headers.get('content-type') ?? '';
      return { status: response.status, body: type.includes('json') ? await response.json() : await response.text() };
    };

    it('GET / says who is logged in', async () => {
      expect((await get('/', 'analyst')).body).to.contain('analyst@example.com');
      expect((await get('/')).body).to.contain('Nobody is logged in');
    });

    it('GET /admin: role admin only', async () => {
      expect(await get('/admin', 'boss')).to.deep.equal({ status: 200, body: { ok: true } });
      expect((await get('/admin', 'plain')).status).to.equal(403);
      expect((await get('/admin', 'analyst')).status).to.equal(403);
      expect((await get('/admin')).status).to.equal(401);
    });

    it('GET /users/:user_id/profile: the user themself or an admin, with user_id a number', async () => {
      expect(await get(`/users/${ids['plain']}/profile`, 'plain')).to.deep.equal({
        status: 200,
        body: { user_id: ids['plain'] },
      });
      expect((await get(`/users/${ids['boss']}/profile`, 'plain')).status).to.equal(403);
      expect((await get(`/users/0${ids['plain']}/profile`, 'plain')).status).to.equal(403);
      expect(await get(`/users/${ids['plain']}/profile`, 'boss')).to.deep.equal({
        status: 200,
        body: { user_id: ids['plain'] },
      });
    });

    it('GET /reports/:team: analyst reads north only, admin everything, a plain user nothing', async () => {
      expect(await get('/reports/north', 'analyst')).to.deep.equal({ status: 200, body: { team: 'north' } });
      expect((await get('/reports/south', 'analyst')).status).to.equal(403);
      expect(await get('/reports/south', 'boss')).to.deep.equal({ status: 200, body: { team: 'south' } });
      expect((await get('/reports/north', 'plain')).status).to.equal(403);
    });
  });

  describe('the error path', () => {
    it('answers GET /users/%ZZ/profile with a 400 problem and no stack trace', async () => {
      const response = await fetch(`${demo.url}/users/%ZZ/profile`);
      expect(response.status).to.equal(400);
      expect(response.headers.get('content-type')).to.match(PROBLEM);
      const text = await response.text();
      expect(JSON.parse(text)).to.include({ status: 400, code: 'bad_request' });
      expectNoInternals(text);
    });

    it('never says X-Powered-By', async () => {
      const paths = [
        '/',
        '/users/%ZZ/profile',
        '/admin',
        '/nowhere',
        '/service-auth/login',
        '/service-auth/me',
        '/service-auth/nope',
      ];
      for (const path of paths) {
        for (const headers of [{}, { Accept: HTML }] as Record<string, string>[]) {
          const response = await fetch(`${demo.url}${path}`, { headers, redirect: 'manual' });
          await response.arrayBuffer();
          expect(response.headers.get('x-powered-by'), `${path} ${response.status}`).to.equal(null);
        }
      }
    });
  });

  // Last: mocha runs a suite's own tests before its nested suites.
  describe('shutdown', () => {
    it('stops cleanly on SIGTERM', async () => {
      expect(await demo.stop()).to.equal(0);
    });
  });
});
