/** The demo's home page: who is logged in, and links to the auth pages. */
export function homePage({ prefix }: { prefix: string }): string {
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
    <p>Nobody is logged in.</p>
    <nav aria-label="Account">
      <ul>
        <li><a href="${prefix}/login">Log in</a></li>
        <li><a href="${prefix}/register">Register</a></li>
        <li><a href="${prefix}/forgot">Forgot password</a></li>
      </ul>
    </nav>
  </main>
</body>
</html>
`;
}
