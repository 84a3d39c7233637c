import { expect } from 'chai';
import { homePage } from '../../demo/home-page.js';
import { AuthUser } from '../../src/index.js';

describe('demo home page', () => {
  const hrefs = (html: string) => [...html.matchAll(/<a href="([^"]+)"/g)].map((m) => m[1]);

  it('says nobody is logged in, and links to every page and every guarded route', () => {
    const html = homePage({ prefix: '/service-auth', user: null });
    expect(html).to.contain('Nobody is logged in.').and.not.contain('/logout');
    expect(hrefs(html)).to.include.members([
      '/service-auth/login',
      '/service-auth/register',
      '/service-auth/forgot',
      '/service-auth/tokens',
      '/users/1/profile',
      '/admin',
      '/reports/north',
      '/reports',
      '/notes/1',
      '/api/whoami',
    ]);
  });

  it("lists the project tracker's routes, which need an organization of the visitor's", () => {
    const html = homePage({ prefix: '/service-auth', user: null });
    for (const route of [
      'GET /orgs/:org/projects',
      'POST /orgs/:org/projects/:id/members',
      'GET /orgs/:org/tasks',
      'PATCH /orgs/:org/tasks/:id',
    ])
      expect(html).to.contain(route);
  });

  it('shows who is logged in, their own profile, and a logout button', () => {
    const user = new AuthUser(7, 'ada<x>@example.com', true, ['analyst', 'admin'], new Date());
    const html = homePage({ prefix: '/auth', user });
    expect(html).to.contain('Logged in as <strong>ada&lt;x&gt;@example.com</strong> (admin); roles: admin, analyst.');
    expect(html).to.contain('<form method="post" action="/auth/logout"><button type="submit">Log out</button></form>');
    expect(hrefs(html)).to.include('/users/7/profile').and.include('/auth/tokens');
  });
});
