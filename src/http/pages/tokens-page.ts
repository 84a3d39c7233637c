import type { CreatedToken, TokenView } from '../../tokens/service.js';
import { escapeHtml, layout, type Notice } from './layout.js';

export interface TokensPageLocals {
  prefix: string;
  email: string;
  tokens: TokenView[];
  /** Just created: the only time its raw value is shown. */
  created?: CreatedToken | undefined;
  notice?: Notice | undefined;
  maxExpiryDays: number;
  defaultExpiryDays: number;
}

/** `GET /tokens`: the signed-in user's tokens, a form to create one, and a button to revoke each. */
export function tokensPage(locals: TokensPageLocals): string {
  const prefix = escapeHtml(locals.prefix);
  const created = locals.created
    ? `    <section aria-labelledby="created-heading" class="notice info" role="status">
      <h2 id="created-heading">Your new token "${escapeHtml(locals.created.name)}"</h2>
      <p>Copy it now: it will not be shown again.</p>
      <p><code>${escapeHtml(locals.created.token)}</code></p>
    </section>\n`
    : '';
  const rows = locals.tokens
    .map(
      (token) => `        <tr>
          <td>${escapeHtml(token.name)}${token.legacy ? ' (legacy: please regenerate)' : ''}</td>
          <td>${escapeHtml(token.scopes.join(' ') || 'all')}</td>
          <td>${escapeHtml(token.created_at.slice(0, 10))}</td>
          <td>${escapeHtml(token.last_used_at?.slice(0, 16).replace('T', ' ') ?? 'never')}</td>
          <td>${escapeHtml(token.expires_at?.slice(0, 10) ?? 'never')}</td>
          <td><form method="post" action="${prefix}/api/tokens/${escapeHtml(token.id)}/revoke"><button type="submit" aria-label="Revoke ${escapeHtml(token.name)}">Revoke</button></form></td>
        </tr>`,
    )
    .join('\n');
  const table = locals.tokens.length
    ? `    <table>
      <caption>Active tokens of ${escapeHtml(locals.email)}</caption>
      <thead><tr><th scope="col">Name</th><th scope="col">Scopes</th><th scope="col">Created</th><th scope="col">Last used</th><th scope="col">Expires</th><th scope="col"><span class="visually-hidden">Actions</span></th></tr></thead>
      <tbody>
${rows}
      </tbody>
    </table>`
    : '    <p>You have no API tokens.</p>';
  return layout(
    'API tokens',
    `${created}${table}
    <h2>Create a token</h2>
    <form method="post" action="${prefix}/api/tokens">
      <label for="name">Name</label>
      <input id="name" name="name" required maxlength="100">
      <label for="expires_in_days">Expires in (days, 1 to ${locals.maxExpiryDays})</label>
      <input id="expires_in_days" name="expires_in_days" type="number" min="1" max="${locals.maxExpiryDays}" value="${locals.defaultExpiryDays}">
      <label for="scopes">Scopes (separated by spaces; empty for all)</label>
      <input id="scopes" name="scopes" aria-describedby="scopes-hint">
      <p id="scopes-hint">Each scope is 1 to 64 of a-z 0-9 : . _ -</p>
      <button type="submit">Create token</button>
    </form>
    <p><a href="/">Home</a></p>`,
    locals.notice,
  );
}
