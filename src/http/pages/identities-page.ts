/**
 * `GET /identities`: the providers linked to the signed-in user, a button to unlink each (posting
 * to `/identities/<id>/remove`, since HTML forms cannot send `DELETE /api/identities/<id>`), and a
 * link per configured provider to link it (`/sso/<id>?link=1`, which goes to the provider).
 */
import type { IdentityView } from '../../sso/identities.js';
import { accountListPage } from './account-list.js';
import { escapeHtml } from './html.js';
import type { Notice } from './layout.js';
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

export function identitiesPage({ prefix, texts, email, identities, providers, notice }: IdentitiesPageLocals): string {
  const t = texts.sso;
  const c = t.columns;
  const nameOf = (id: string): string => providers.find((provider) => provider.id === id)?.name ?? id;
  const links = providers.map(({ id, name }) => {
    // Links: a form's redirect on to the provider would break the pages' `form-action 'self'`.
    const href = `${escapeHtml(prefix)}/sso/${encodeURIComponent(id)}?link=1`;
    return `    <p><a class="button" href="${href}">${escapeHtml(t.linkWith(name))}</a></p>`;
  });
  return accountListPage({
    prefix,
    texts,
    notice,
    page: 'identities',
    title: t.identitiesTitle,
    intro: t.identitiesIntro,
    items: identities,
    none: t.none,
    caption: t.caption(email),
    columns: [
      { heading: c.provider, cell: (identity) => escapeHtml(nameOf(identity.provider)) },
      { heading: c.email, cell: (identity) => escapeHtml(identity.email ?? '') },
      { heading: c.linked, cell: (identity) => escapeHtml(identity.created_at.slice(0, 16).replace('T', ' ')) },
    ],
    actions: c.actions,
    button: (identity) => ({
      path: `/identities/${identity.id}/remove`,
      text: t.unlink,
      label: t.unlinkLabel(nameOf(identity.provider)),
    }),
    after: providers.length ? `\n    <h2>${escapeHtml(t.linkHeading)}</h2>\n${links.join('\n')}` : '',
  });
}
