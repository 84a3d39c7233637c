/**
 * The organization pages as a browser's requests reach them (supertest, HTML): `/orgs`, `/orgs/<org>`
 * with what the caller's ability there allows, their forms and the routes those post to, and the
 * invitation link's page in each of its states. Their words all come from `auth.texts`, and an
 * application's own views receive every documented local. The whole flow in Chromium is
 * test/browser/orgs.test.ts.
 */
import { expect } from 'chai';
import { mkdir, rm, writeFile } from 'node:fs/promises';
import { basename, join } from 'node:path';
import request from 'supertest';
import { defaultPageTexts, type PageTexts } from '../../src/index.js';
import {
  createTestApp,
  outboxMails,
  PASSWORD,
  sessionCookieFrom,
  temporaryDirectory,
  type TestApp,
} from '../helpers/app.js';
import { formPost, HTML, pageGet } from '../helpers/forms.js';
import { shout, wordsOutsideTexts } from '../http/page-words.js';
import { defineDemoOrgRoles } from './org-roles.js';

/** A browser's form with repeated fields (one `roles` per box ticked). */
function formPostFields(app: TestApp['app'], path: string, fields: [string, string][], cookie: string): request.Test {
  const body = fields.map(([name, value]) => `${encodeURIComponent(name)}=${encodeURIComponent(value)}`).join('&');
  return request(app)
    .post(`/service-auth${path}`)
    .set('Accept', HTML)
    .set('Sec-Fetch-Site', 'same-origin')
    .set('Cookie', cookie)
    .type('form')
    .send(body);
}

describe('the organization pages', () => {
  let t: TestApp;
  let outbox: string;
  let views: string | undefined;
  const cookies: Record<string, string> = {};
  const ids: Record<string, number> = {};
  const renders: { page: string; locals: Record<string, unknown> }[] = [];

  async function start(
    settings: Record<string, unknown> = {},
    routes?: Parameters<typeof createTestApp>[1],
  ): Promise<void> {
    outbox = await temporaryDirectory();
    t = await createTestApp(
      { SERVICE_AUTH_RATE_LIMIT_ENABLED: false, SERVICE_AUTH_MAIL_OUTBOX: outbox, ...settings },
      routes,
    );
    defineDemoOrgRoles(t.auth);
    for (const email of ['ada@example.com', 'cy@example.com', 'dan@example.com']) {
      ids[email] = (await t.auth.users.create({ email, password: PASSWORD })).id;
      cookies[email] = sessionCookieFrom(
        await request(t.app).post('/service-auth/login').send({ email, password: PASSWORD }).expect(200),
      )!;
    }
  }
  async function stop(): Promise<void> {
    await t.auth.close();
    await rm(outbox, { recursive: true, force: true });
    if (views) await rm(views, { recursive: true, force: true });
    views = undefined;
  }

  const as = (email: string, test: request.Test) => test.set('Cookie', cookies[email]!);
  const post = (email: string, path: string, body: Record<string, string>) => as(email, formPost(t.app, path, body));
  const get = (email: string, path: string) => as(email, pageGet(t.app, path));

  async function invitationToken(to: string): Promise<string> {
    const pattern = /\/service-auth\/invitations\/accept\?token=([A-Za-z0-9_-]+)/;
    const deadline = Date.now() + 5000;
    for (;;) {
      const mail = (await outboxMails(outbox, 0)).filter((m) => m.to === to && pattern.test(m.text)).pop();
      if (mail) return pattern.exec(mail.text)![1]!;
      if (Date.now() > deadline) throw new Error(`no invitation mailed to ${to}`);
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
  }

  /**
   * Every state of every organization page, as a browser reaches it. Ada creates an organization
   * with Cy as a member; Dan is in none. Returns the responses.
   */
  async function visitEveryState(): Promise<request.Response[]> {
    const responses: request.Response[] = [];
    const keep = async (test: request.Test, status: number) => {
      const response = await test.expect(status);
      responses.push(response);
      return response;
    };
    await keep(get('dan@example.com', '/orgs'), 200);
    const created = await keep(post('ada@example.com', '/api/orgs', { name: 'Page Team', slug: '' }), 303);
    expect(created.headers['location']).to.equal('/service-auth/orgs/page-team');
    await keep(post('ada@example.com', '/api/orgs', { name: '', slug: 'Bad Slug' }), 400);
    await keep(post('ada@example.com', '/api/orgs', { name: 'Again', slug: 'page-team' }), 409);
    await t.auth.orgs.addMember('page-team', 'cy@example.com', ['member']);
    await keep(get('ada@example.com', '/orgs?left=1'), 200);
    await keep(get('ada@example.com', '/orgs/page-team'), 200);
    await keep(get('cy@example.com', '/orgs/page-team'), 200);
    await keep(post('ada@example.com', '/api/orgs/page-team/invitations', { email: 'eve@example.com' }), 400);
    await keep(
      post('ada@example.com', '/api/orgs/page-team/invitations', { email: 'cy@example.com', roles: 'member' }),
      409,
    );
    await keep(
      post('ada@example.com', '/api/orgs/page-team/invitations', { email: 'eve@example.com', roles: 'viewer' }),
      303,
    );
    await keep(get('ada@example.com', '/orgs/page-team?done=invited'), 200);
    await keep(post('ada@example.com', `/orgs/page-team/members/${ids['ada@example.com']}/remove`, {}), 409);
    const token = await invitationToken('eve@example.com');
    await keep(pageGet(t.app, '/invitations/accept'), 200);
    await keep(pageGet(t.app, `/invitations/accept?token=${token}`), 200);
    await keep(get('dan@example.com', `/invitations/accept?token=${token}`), 200);
    await keep(post('dan@example.com', '/api/invitations/accept', { token }), 403);
    await t.auth.users.create({ email: 'eve@example.com', password: PASSWORD });
    cookies['eve@example.com'] = sessionCookieFrom(
      await request(t.app)
        .post('/service-auth/login')
        .send({ email: 'eve@example.com', password: PASSWORD })
        .expect(200),
    )!;
    await keep(get('eve@example.com', `/invitations/accept?token=${token}`), 200);
    await keep(post('eve@example.com', '/api/invitations/accept', { token }), 303);
    await keep(post('eve@example.com', '/api/invitations/accept', { token }), 400);
    return responses;
  }

  describe('as built in', () => {
    before(() => start());
    after(() => stop());

    it('lists my organizations with my roles, and creates one from the form, to its page', async () => {
      const empty = await get('dan@example.com', '/orgs').expect(200);
      expect(empty.text).to.contain('You are not a member of any organization yet.');
      const created = await post('dan@example.com', '/api/orgs', { name: 'Dan’s Shop', slug: '' }).expect(303);
      expect(created.headers['location']).to.equal('/service-auth/orgs/dan-s-shop');
      const list = await get('dan@example.com', '/orgs').expect(200);
      expect(list.text).to.match(
        /<a href="\/service-auth\/orgs\/dan-s-shop">Dan’s Shop<\/a><\/td>\s*<td[^>]*>dan-s-shop<\/td>\s*<td[^>]*>owner<\/td>/,
      );
    });

    it('shows a refused field beside its input, with what was typed, and the status of the API', async () => {
      const bad = await post('dan@example.com', '/api/orgs', { name: 'Fine name', slug: 'NO' }).expect(400);
      expect(bad.text).to.contain('id="slug-error"');
      expect(bad.text).to.contain('A slug is 2 to 48 of a-z 0-9 -.');
      expect(bad.text).to.contain('value="Fine name"');
      await post('dan@example.com', '/api/orgs', { name: 'Taken', slug: 'taken-slug' }).expect(303);
      const taken = await post('dan@example.com', '/api/orgs', { name: 'Taken', slug: 'taken-slug' }).expect(409);
      expect(taken.text).to.contain('Another organization has this slug.');
    });

    it('shows an owner the invite form, role boxes and remove buttons; a member only the list and leaving', async () => {
      await post('ada@example.com', '/api/orgs', { name: 'Shown', slug: 'shown' }).expect(303);
      await t.auth.orgs.addMember('shown', 'cy@example.com', ['member']);
      const owner = (await get('ada@example.com', '/orgs/shown').expect(200)).text;
      expect(owner).to.contain('action="/service-auth/api/orgs/shown/invitations"');
      expect(owner).to.contain(`action="/service-auth/orgs/shown/members/${ids['cy@example.com']}/remove"`);
      expect(owner).to.contain(`action="/service-auth/orgs/shown/members/${ids['cy@example.com']}/roles"`);
      expect(owner).to.contain('Pending invitations');
      const member = (await get('cy@example.com', '/orgs/shown').expect(200)).text;
      expect(member).not.to.contain('/invitations"');
      expect(member).not.to.contain('/roles"');
      expect(member).not.to.contain('Pending invitations');
      expect(member).to.contain(`action="/service-auth/orgs/shown/members/${ids['cy@example.com']}/remove"`);
      expect(member).not.to.contain(`action="/service-auth/orgs/shown/members/${ids['ada@example.com']}/remove"`);
      await get('dan@example.com', '/orgs/shown').expect(404);
      const anonymous = await pageGet(t.app, '/orgs/shown').expect(303);
      expect(anonymous.headers['location']).to.equal('/service-auth/login?next=%2Fservice-auth%2Forgs%2Fshown');
    });

    it('changes roles, invites, revokes, removes and leaves through the forms, saying what was done', async () => {
      await post('ada@example.com', '/api/orgs', { name: 'Forms', slug: 'forms' }).expect(303);
      await t.auth.orgs.addMember('forms', 'cy@example.com', ['member']);
      await t.auth.orgs.addMember('forms', 'dan@example.com', ['viewer']);
      const cyId = ids['cy@example.com']!;
      const saved = await formPostFields(
        t.app,
        `/orgs/forms/members/${cyId}/roles`,
        [
          ['roles', 'admin'],
          ['roles', 'viewer'],
        ],
        cookies['ada@example.com']!,
      ).expect(303);
      expect(saved.headers['location']).to.equal('/service-auth/orgs/forms?done=roles');
      expect((await t.auth.orgs.members('forms')).find((m) => m.user_id === cyId)!.roles).to.have.members([
        'admin',
        'viewer',
      ]);
      expect((await get('ada@example.com', '/orgs/forms?done=roles').expect(200)).text).to.contain(
        'The roles were saved.',
      );

      // Cy, an admin now, may not make an owner: the page says so, with the API's status.
      const refused = await formPostFields(
        t.app,
        `/orgs/forms/members/${ids['dan@example.com']}/roles`,
        [['roles', 'owner']],
        cookies['cy@example.com']!,
      ).expect(403);
      expect(refused.text).to.contain('Your roles here do not allow this.');

      const invited = await formPostFields(
        t.app,
        '/api/orgs/forms/invitations',
        [
          ['email', 'fay@example.com'],
          ['roles', 'member'],
        ],
        cookies['cy@example.com']!,
      ).expect(303);
      expect(invited.headers['location']).to.equal('/service-auth/orgs/forms?done=invited');
      const [invitation] = await t.auth.orgs.invitations('forms');
      expect(invitation).to.deep.include({ email: 'fay@example.com', roles: ['member'] });
      const page = (await get('cy@example.com', '/orgs/forms').expect(200)).text;
      expect(page).to.contain('fay@example.com');
      await post('cy@example.com', `/orgs/forms/invitations/${invitation!.id}/revoke`, {}).expect(303);
      expect(await t.auth.orgs.invitations('forms')).to.deep.equal([]);

      const removed = await post('cy@example.com', `/orgs/forms/members/${ids['dan@example.com']}/remove`, {}).expect(
        303,
      );
      expect(removed.headers['location']).to.equal('/service-auth/orgs/forms?done=removed');
      const left = await post('cy@example.com', `/orgs/forms/members/${cyId}/remove`, {}).expect(303);
      expect(left.headers['location']).to.equal('/service-auth/orgs?left=1');
      expect((await get('cy@example.com', '/orgs?left=1').expect(200)).text).to.contain('You left the organization.');
      await get('cy@example.com', '/orgs/forms').expect(404);
    });

    it('answers a member whose roles may not read the organization with the 403 page, and logs no error', async () => {
      t.auth.defineOrgRole('guest', [{ action: 'read', subject: 'Membership' }]);
      await post('ada@example.com', '/api/orgs', { name: 'Closed', slug: 'closed' }).expect(303);
      await t.auth.orgs.addMember('closed', 'dan@example.com', ['guest']);
      const refused = await get('dan@example.com', '/orgs/closed').expect(403);
      expect(refused.headers['content-type']).to.match(/^text\/html/);
      expect(refused.text).to.contain('Your account does not have permission for this.');
      const form = await post('dan@example.com', `/orgs/closed/members/${ids['dan@example.com']}/remove`, {}).expect(
        303,
      );
      expect(form.headers['location']).to.equal('/service-auth/orgs?left=1');
      expect(t.log.entries.filter((entry) => entry.level === 'error')).to.deep.equal([]);
    });

    it('takes only a browser’s form from this site on the routes of its own buttons', async () => {
      await post('ada@example.com', '/api/orgs', { name: 'Only forms', slug: 'only-forms' }).expect(303);
      const program = await request(t.app)
        .post(`/service-auth/orgs/only-forms/members/${ids['ada@example.com']}/remove`)
        .set('Cookie', cookies['ada@example.com']!)
        .set('Sec-Fetch-Site', 'same-origin')
        .send({})
        .expect(404);
      expect(program.body.code).to.equal('not_found');
      // A form another site made the browser send is refused, and changes nothing.
      await t.auth.orgs.addMember('only-forms', 'cy@example.com', ['member']);
      const forged = await as(
        'ada@example.com',
        formPost(t.app, `/orgs/only-forms/members/${ids['cy@example.com']}/remove`, {}),
      )
        .set('Sec-Fetch-Site', 'cross-site')
        .expect(403);
      expect(forged.text).to.contain('This form was sent from another site');
      expect((await t.auth.orgs.members('only-forms')).map((m) => m.email)).to.deep.equal([
        'ada@example.com',
        'cy@example.com',
      ]);
    });

    it('shows the invitation link’s page in each state, and accepting it leads to the organization', async () => {
      await post('ada@example.com', '/api/orgs', { name: 'Link Team', slug: 'link-team' }).expect(303);
      await formPostFields(
        t.app,
        '/api/orgs/link-team/invitations',
        [
          ['email', 'gus@example.com'],
          ['roles', 'viewer'],
        ],
        cookies['ada@example.com']!,
      ).expect(303);
      const token = await invitationToken('gus@example.com');
      const link = `/invitations/accept?token=${token}`;

      expect((await pageGet(t.app, '/invitations/accept?token=nope').expect(200)).text).to.contain(
        'This invitation link is unknown, expired, revoked or already used.',
      );
      const anonymous = (await pageGet(t.app, link).expect(200)).text;
      expect(anonymous).to.contain('You are invited to join Link Team as viewer.');
      expect(anonymous).to.contain(`href="/service-auth/register?next=${encodeURIComponent(`/service-auth${link}`)}"`);
      expect(anonymous).to.contain(`href="/service-auth/login?next=${encodeURIComponent(`/service-auth${link}`)}"`);
      expect(anonymous).not.to.contain('Accept the invitation');
      const other = (await get('dan@example.com', link).expect(200)).text;
      expect(other).to.contain(
        'You are logged in as dan@example.com, but this invitation was mailed to another address.',
      );
      expect((await post('dan@example.com', '/api/invitations/accept', { token }).expect(403)).text).to.contain(
        'You are logged in as dan@example.com',
      );

      // The invited address, not confirmed (an account made by an operator, say): confirm it first.
      await t.auth.users.create({ email: 'gus@example.com', password: PASSWORD, emailConfirmed: false });
      const unconfirmed = sessionCookieFrom(
        await request(t.app)
          .post('/service-auth/login')
          .send({ email: 'gus@example.com', password: PASSWORD })
          .expect(200),
      )!;
      const waiting = (await pageGet(t.app, link).set('Cookie', unconfirmed).expect(200)).text;
      expect(waiting).to.contain('Your email address is not confirmed yet.');
      expect(waiting).not.to.contain('Accept the invitation');
      await t.auth.users.confirmEmail('gus@example.com');
      cookies['gus@example.com'] = sessionCookieFrom(
        await request(t.app)
          .post('/service-auth/login')
          .send({ email: 'gus@example.com', password: PASSWORD })
          .expect(200),
      )!;
      const invitee = (await get('gus@example.com', link).expect(200)).text;
      expect(invitee).to.contain('Accept the invitation');
      expect(invitee).to.contain('action="/service-auth/api/invitations/accept"');
      const accepted = await post('gus@example.com', '/api/invitations/accept', { token }).expect(303);
      expect(accepted.headers['location']).to.equal('/service-auth/orgs/link-team?done=joined');
      expect((await get('gus@example.com', '/orgs/link-team?done=joined').expect(200)).text).to.contain(
        'You joined the organization.',
      );
      expect((await post('gus@example.com', '/api/invitations/accept', { token }).expect(400)).text).to.contain(
        'This invitation link is unknown, expired, revoked or already used.',
      );

      // Made a member meanwhile: the page says so, with the way to the organization.
      await formPostFields(
        t.app,
        '/api/orgs/link-team/invitations',
        [
          ['email', 'cy@example.com'],
          ['roles', 'viewer'],
        ],
        cookies['ada@example.com']!,
      ).expect(303);
      const second = await invitationToken('cy@example.com');
      await t.auth.orgs.addMember('link-team', 'cy@example.com', ['member']);
      const member = await post('cy@example.com', '/api/invitations/accept', { token: second }).expect(409);
      expect(member.text).to.contain('You are a member of this organization already.');
      expect(member.text).to.contain('href="/service-auth/orgs/link-team"');
    });
  });

  describe('reworded or replaced', () => {
    afterEach(() => stop());

    it('has no words of its own outside the texts', async () => {
      await start();
      t.auth.texts = shout(defaultPageTexts) as PageTexts;
      for (const page of await visitEveryState()) {
        if (page.status === 303) continue;
        expect(
          wordsOutsideTexts(
            page.text.replaceAll(
              /(Page Team|Again|page-team|eve@example\.com|cy@example\.com|dan@example\.com|ada@example\.com|owner|member|viewer|admin)/g,
              '',
            ),
          ),
          page.text,
        ).to.deep.equal([]);
      }
    });

    it('gives an application’s own views every documented local, null when it has no value', async () => {
      views = await temporaryDirectory();
      await mkdir(join(views, 'service-auth'));
      const documented: Record<string, string[]> = {
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
      };
      for (const page of Object.keys(documented)) await writeFile(join(views, 'service-auth', `${page}.html`), page);
      renders.length = 0;
      await start({ views, 'view engine': 'html' }, (app) => {
        app.engine('html', (file, locals, callback) => {
          renders.push({ page: basename(file, '.html'), locals: locals as Record<string, unknown> });
          callback(null, `<p>${basename(file, '.html')}</p>`);
        });
      });
      await visitEveryState();
      const seen = renders
        .filter((r) => r.page in documented)
        .map(({ page, locals }) => `${page}${typeof locals['state'] === 'string' ? `:${locals['state']}` : ''}`);
      expect(seen.join(' ')).to.equal(
        'orgs orgs orgs orgs org org org org org org invitation:unusable invitation:sign-in invitation:other-account invitation:other-account invitation:accept invitation:unusable',
      );
      for (const { page, locals } of renders.filter((r) => r.page in documented)) {
        for (const key of documented[page]!) {
          expect(locals, `${page}: ${key}`).to.have.property(key);
          expect(locals[key], `${page}: ${key}`).not.to.equal(undefined);
        }
      }
    });
  });
});
