import { createHash } from 'node:crypto';
import { escapeHtml } from '../src/http/pages/html.js';
import type { AuthUser } from '../src/index.js';

type Link = { href: string; text: string; note: string };

const STYLE = `
    body { font: 1.0625rem/1.5 system-ui, sans-serif; color: #1b1f24; max-width: 40rem; margin: 2rem auto; padding: 0 1rem; }
    a { color: #0b57b8; }
    li { margin: .35rem 0; }
    small { display: block; color: #505a66; }
    button { font: inherit; font-weight: 600; padding: .5rem 1.2rem; border: 0; border-radius: .3rem; background: #1f3a5f; color: #fff; cursor: pointer; }
  `;

/**
 * The home page's Content-Security-Policy, as strict as the package's own pages': nothing loaded,
 * only this inline style, forms to this site only, never framed.
 */
export const HOME_PAGE_CSP = [
  "default-src 'none'",
  `style-src 'sha256-${createHash('sha256').update(STYLE, 'utf8').digest('base64')}'`,
  "form-action 'self'",
  "base-uri 'none'",
  "frame-ancestors 'none'",
].join('; ');

/**
 * The demo's home page: who is logged in (with a logout button), every page of service-auth, and
 * the demo's guarded routes with the guard each one uses. The demo's own page, so its own markup.
 */
export function homePage({ prefix, user }: { prefix: string; user: AuthUser | null }): string {
  const who = user
    ? `<p>Logged in as <strong>${escapeHtml(user.email)}</strong>${user.is_admin ? ' (admin)' : ''}${
        user.roles.size ? `; roles: ${[...user.roles].map(escapeHtml).join(', ')}` : '; no roles'
      }.</p>
    <form method="post" action="${prefix}/logout"><button type="submit">Log out</button></form>`
    : `<p>Nobody is logged in. <a href="${prefix}/login">Log in</a> or <a href="${prefix}/register">create an account</a>.</p>`;
  const pages: Link[] = [
    { href: `${prefix}/login`, text: 'Log in', note: 'email and password' },
    { href: `${prefix}/register`, text: 'Create an account', note: 'the password rules are listed on the page' },
    { href: `${prefix}/forgot`, text: 'Forgot password', note: 'mails a link to the reset page' },
    { href: `${prefix}/tokens`, text: 'API tokens', note: 'create, copy and revoke personal access tokens' },
  ];
  const routes: Link[] = [
    {
      href: `/users/${user?.id ?? 1}/profile`,
      text: user ? 'Your profile' : 'Profile of user 1',
      note: "policy is_self_or_admin: yourself, or an admin's flag",
    },
    { href: '/admin', text: 'Admin area', note: 'rolesRequired("admin")' },
    { href: '/reports/north', text: 'Reports of team north', note: 'CASL rule: role analyst reads team north' },
    {
      href: '/reports',
      text: 'Reports you may read',
      note: 'loginRequired; the query is accessibleBy(req, "read", "Report")',
    },
    {
      href: '/notes/1',
      text: 'Note 1',
      note: 'require({ load }): its owner (role member) or an admin; 404 if there is none',
    },
    { href: '/api/whoami', text: 'Who am I (API)', note: 'tokenRequired: send Authorization: Bearer <token>' },
  ];
  const requests: { text: string; note: string }[] = [
    {
      text: 'POST /notes { title, body }',
      note: 'require({ action: "create", subject: "Note" }): a note of your own (201)',
    },
    {
      text: 'PATCH /notes/:id { title?, body? }',
      note: 'require({ load, fields: "body" }): a member changes the title and body of their own notes',
    },
    {
      text: `PATCH /users/${user?.id ?? ':user_id'} { email?, password? }`,
      note: 'require({ fields: "body" }): a member may set their own email and password, nothing else',
    },
    // The project tracker, in an organization of yours (`:org` its id or slug; `auth create-org` makes one).
    {
      text: 'GET /orgs/:org/projects',
      note: 'orgRequired(); the query is accessibleBy(req, "read", "Project"): a member, the projects they work on',
    },
    { text: 'POST /orgs/:org/projects { name, archived? }', note: 'require create Project: owners and admins (201)' },
    {
      text: 'PATCH /orgs/:org/projects/:id { name?, archived? }',
      note: 'require({ load, fields: "body" }): owners and admins',
    },
    {
      text: 'POST /orgs/:org/projects/:id/members { user_id }',
      note: 'require update Project: a member of the organization joins the project (204)',
    },
    {
      text: 'GET /orgs/:org/tasks',
      note: 'accessibleBy through project.members: a member, the tasks of their projects; a viewer, of projects not archived',
    },
    {
      text: 'POST /orgs/:org/tasks { project_id, title, assignee_id? }',
      note: 'require create Task: owners, admins and members (201)',
    },
    { text: 'GET /orgs/:org/tasks/:id', note: 'require({ load, conceal: true }): 404 for a task you may not read' },
    {
      text: 'PATCH /orgs/:org/tasks/:id { title?, done?, assignee_id? }',
      note: 'require({ load, fields: "body" }): a member, title and done of tasks assigned to them',
    },
  ];
  const list = (links: Link[]) =>
    links
      .map(
        ({ href, text, note }) =>
          `        <li><a href="${escapeHtml(href)}">${escapeHtml(text)}</a> <small>${escapeHtml(note)}</small></li>`,
      )
      .join('\n');
  return `<!doctype html>
<html lang="en">
<head>
  <meta charset="utf-8">
  <meta name="viewport" content="width=device-width, initial-scale=1">
  <title>service-auth demo</title>
  <style>${STYLE}</style>
</head>
<body>
  <main>
    <h1>service-auth demo</h1>
    ${who}
    <nav aria-labelledby="pages-heading">
      <h2 id="pages-heading">Account pages</h2>
      <ul>
${list(pages)}
      </ul>
    </nav>
    <nav aria-labelledby="routes-heading">
      <h2 id="routes-heading">Guarded routes</h2>
      <ul>
${list(routes)}
      </ul>
      <p>And with a JSON body:</p>
      <ul>
${requests.map(({ text, note }) => `        <li><code>${escapeHtml(text)}</code> <small>${escapeHtml(note)}</small></li>`).join('\n')}
      </ul>
    </nav>
  </main>
</body>
</html>
`;
}
