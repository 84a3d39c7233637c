/**
 * `GET /identities`: the providers linked to the signed-in user, a button to unlink each (posting
 * to `/identities/<id>/remove`, since HTML forms cannot send `DELETE /api/identities/<id>`), and a
 * link per configured provider to link it (`/sso/<id>?link=1`, which goes to the provider).
 */
import type { IdentityView } from '../../sso/identities.js';
import { accountNav } from './account-nav.js';
import { escapeHtml } from './html.js';
import { layout, type Notice } from './layout.js';
import type { PageTexts } from './texts.js';

/** What the identities page is given: every key, null when it has no value. */
export interface IdentitiesPageLocals {
  prefix: string;
  texts: PageTexts;
  /** The signed-in user's email. */
  email: string;
  /** The user's identities, oldest first, as `GET /api/identities` lists them. */
  identities: IdentityView[];
  /** The providers configured, to link. */
  providers: { id: string; name: string }[];
  notice: Notice | null;
}

export function identitiesPage(locals: IdentitiesPageLocals): string {
  const { texts, providers } = locals;
  const t = texts.sso;
  const prefix = escapeHtml(locals.prefix);
  const list = locals.identities.length === 0 ? `    <p>${escapeHtml(t.none)}</p>` : identityTable(locals);
  const links = providers.map(
    // Links: a form's redirect on to the provider would break the pages' `form-action 'self'`.
    ({ id, name }) => `    <p><a class="button" href="${prefix}/sso/${encodeURIComponent(id)}?link=1">${escapeHtml(t.linkWith(name))}</a></p>`,
  );
  return layout({
    title: t.identitiesTitle,
    texts,
    notice: locals.notice,
    wide: true,
    body: `    <p>${escapeHtml(t.identitiesIntro)}</p>
${list}${providers.length ? `\n    <h2>${escapeHtml(t.linkHeading)}</h2>\n${links.join('\n')}` : ''}${accountNav(locals.prefix, texts, 'identities')}`,
  });
}

function identityTable({ prefix, texts, email, identities, providers }: IdentitiesPageLocals): string {
  const t = texts.sso;
  const c = t.columns;
  const nameOf = (id: string) => providers.find((provider) => provider.id === id)?.name ?? id;
  const rows = identities.map(
    (identity) => `        <tr>
          <td data-label="${escapeHtml(c.provider)}">${escapeHtml(nameOf(identity.provider))}</td>
          <td data-label="${escapeHtml(c.email)}">${escapeHtml(identity.email ?? '')}</td>
          <td data-label="${escapeHtml(c.linked)}">${escapeHtml(identity.created_at.slice(0, 16).replace('T', ' '))}</td>
          <td><form method="post" action="${escapeHtml(prefix)}/identities/${identity.id}/remove"><button type="submit" class="secondary" aria-label="${escapeHtml(t.unlinkLabel(nameOf(identity.provider)))}">${escapeHtml(t.unlink)}</button></form></td>
        </tr>`,
  );
  return `    <table>
      <caption>${escapeHtml(t.caption(email))}</caption>
      <thead><tr><th scope="col">${escapeHtml(c.provider)}</th><th scope="col">${escapeHtml(c.email)}</th><th scope="col">${escapeHtml(c.linked)}</th><th scope="col"><span class="visually-hidden">${escapeHtml(c.actions)}</span></th></tr></thead>
      <tbody>
${rows.join('\n')}
      </tbody>
    </table>`;
}
