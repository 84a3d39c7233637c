import type { AuthUser } from '../src/index.js';

const escape = (value: string) => value.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');

/** The demo's home page: who is logged in, and links to the auth pages and the demo routes. */
export function homePage({ prefix, user }: { prefix: string; user: AuthUser | null }): string {
  const who = user
    ? `<p>Logged in as <strong>${escape(user.email)}</strong>${user.is_admin ? ' (admin)' : ''}${
        user.roles.size ? `, roles: ${[...user.roles].map(escape).join(', ')}` : ''
      }.</p>
    <form method="post" action="${prefix}/logout"><button type="submit">Log out</button></form>`
    : '<p>Nobody is logged in.</p>';
  const links = user
    ? [
        [`${prefix}/tokens`, 'Your API tokens'],
        [`/users/${user.id}/profile`, 'Your profile (policy is_self_or_admin)'],
        ['/admin', 'Admin area (role admin)'],
        ['/reports/north', 'Report of team north (role analyst)'],
      ]
    : [
        [`${prefix}/login`, 'Log in'],
        [`${prefix}/register`, 'Register'],
        [`${prefix}/forgot`, 'Forgot password'],
      ];
  return `<!doctype html>
<html lang="en">
<head>
  <meta charset="utf-8">
  <meta name="viewport" content="width=device-width, initial-scale=1">
  <title>service-auth demo</title>
</head>
<body>
  <main>
    <h1>service-auth demo</h1>
    ${who}
    <nav aria-label="Pages">
      <ul>
${links.map(([href, text]) => `        <li><a href="${href}">${text}</a></li>`).join('\n')}
      </ul>
    </nav>
  </main>
</body>
</html>
`;
}
