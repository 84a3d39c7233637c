/**
 * `GET /tokens`: the signed-in user's tokens, a form to create one, and a link to revoke each (via
 * a confirmation page, so no script is needed to confirm). A token just created is shown here,
 * once, with a copy button.
 */
import type { CreatedToken, TokenView } from '../../tokens/service.js';
import { accountNav } from './account-nav.js';
import { renderFields, type FieldErrors, type FieldSpec } from './fields.js';
import { escapeHtml } from './html.js';
import { layout, type Notice } from './layout.js';
import type { PageTexts } from './texts.js';

/** What the tokens page is given: every key, null when it has no value. */
export interface TokensPageLocals {
  prefix: string;
  texts: PageTexts;
  /** The signed-in user's email. */
  email: string;
  /** The user's tokens, as `GET /api/tokens` lists them. */
  tokens: TokenView[];
  /** The user's organizations, a token may be bound to one of them (none: no choice offered). */
  orgs: { id: number; slug: string; name: string }[];
  /** Just created: the only time its raw value is shown. */
  created: CreatedToken | null;
  notice: Notice | null;
  errors: FieldErrors | null;
  /** What the creation form sent, shown again when it was refused. */
  values: TokenFormValues | null;
  maxExpiryDays: number;
  defaultExpiryDays: number;
  /** The scopes the application defines (`auth.defineScope`), offered as checkboxes; none: a text field. */
  scopes: readonly DefinedScope[];
}

/** A scope the application defines, as the tokens page offers it. */
export interface DefinedScope {
  name: string;
  description: string;
}

/** The creation form's fields as sent (text, or null when the field was not sent). */
export interface TokenFormValues {
  name: string | null;
  expires_in_days: string | null;
  scopes: string | null;
  org: string | null;
}

export function tokensPage(locals: TokensPageLocals): string {
  const { texts } = locals;
  const values = locals.values ?? { name: null, expires_in_days: null, scopes: null, org: null };
  const t = texts.tokens;
  const prefix = escapeHtml(locals.prefix);
  const { fields, summary } = renderFields(
    [
      { name: 'name', label: t.name, value: values.name ?? '', attributes: 'required maxlength="100"' },
      {
        name: 'expires_in_days',
        label: t.expiresInDays(locals.maxExpiryDays),
        type: 'number',
        value: values.expires_in_days ?? locals.defaultExpiryDays,
        attributes: `inputmode="numeric" min="1" max="${locals.maxExpiryDays}"`,
      },
      ...(locals.scopes.length > 0
        ? []
        : [
            {
              name: 'scopes',
              label: t.scopes,
              value: values.scopes ?? '',
              hint: t.scopesHint,
              attributes: 'autocomplete="off" spellcheck="false"',
            },
          ]),
      ...orgField(locals, values.org),
    ],
    locals.errors,
    texts,
  );
  return layout({
    title: t.title,
    texts,
    notice: locals.notice,
    wide: true,
    script: Boolean(locals.created),
    body:
      `${locals.created ? createdSection(locals.created, texts) : ''}${tokenTable(locals)}
    <h2 id="create-heading">${escapeHtml(t.createHeading)}</h2>
${summary}    <form method="post" action="${prefix}/api/tokens" aria-labelledby="create-heading" ` +
      `novalidate>${fields}${scopeChoices(locals.scopes, values.scopes, texts)}
      <button type="submit">${escapeHtml(t.submit)}</button>
    </form>${accountNav(locals.prefix, texts, 'tokens')}`,
  });
}

/** A checkbox per defined scope, with its description; those sent before stay checked. */
function scopeChoices(scopes: readonly DefinedScope[], sent: string | null, texts: PageTexts): string {
  if (scopes.length === 0) return '';
  const t = texts.tokens;
  const checked = new Set((sent ?? '').split(/[\s,]+/).filter(Boolean));
  const boxes = scopes
    .map((scope, index) => {
      const id = `scope-${index}`;
      return (
        `
        <div class="checkbox"><input type="checkbox" id="${id}" name="scopes" value="` +
        `${escapeHtml(scope.name)}"${checked.has(scope.name) ? ' checked' : ''} aria-describedby="` +
        `${id}-description"><label for="${id}"><code>${escapeHtml(scope.name)}</code></label> <span ` +
        `class="hint" id="${id}-description">${escapeHtml(scope.description)}</span></div>`
      );
    })
    .join('');
  return `
      <fieldset id="scopes" aria-describedby="scopes-hint">
        <legend>${escapeHtml(t.scopes)}</legend>
        <p class="hint" id="scopes-hint">${escapeHtml(t.scopesChoiceHint)}</p>${boxes}
      </fieldset>`;
}

/** The organization to bind the token to, offered only to a member of some (its value the org's id). */
function orgField({ texts, orgs }: TokensPageLocals, chosen: string | null): FieldSpec[] {
  if (orgs.length === 0) return [];
  const t = texts.tokens;
  const options = [
    { value: '', label: t.noOrg },
    ...orgs.map((org) => ({ value: String(org.id), label: `${org.name} (${org.slug})` })),
  ];
  return [{ name: 'org', label: t.org, hint: t.orgHint, options, value: chosen ?? '' }];
}

function createdSection(created: CreatedToken, texts: PageTexts): string {
  const t = texts.tokens;
  return (
    `    <section class="notice info created" aria-labelledby="created-heading">
      <h2 id="created-heading">${escapeHtml(t.createdHeading(created.name))}</h2>
      <p>${escapeHtml(t.createdWarning)}</p>
      <p class="hint">${escapeHtml(t.tokenLabel)}</p>
      <code class="secret" id="new-token">${escapeHtml(created.token)}</code>
      <div class="actions">
        <button type="button" class="secondary" data-copy="new-token" data-status="copy-status" ` +
    `data-copied="${escapeHtml(t.copied)}" data-failed="${escapeHtml(t.copyFailed)}" hidden>` +
    `${escapeHtml(t.copy)}</button>
        <span id="copy-status" role="status"></span>
      </div>
    </section>\n`
  );
}

function tokenTable({ prefix, texts, email, tokens }: TokensPageLocals): string {
  const t = texts.tokens;
  if (tokens.length === 0) return `    <p>${escapeHtml(t.none)}</p>`;
  const c = t.columns;
  const rows = tokens.map(
    (token) =>
      `        <tr>
          <td data-label="${escapeHtml(c.name)}">${escapeHtml(token.name)}${token.legacy ? ` <em>(${escapeHtml(t.legacy)})</em>` : ''}</td>
          <td data-label="${escapeHtml(c.scopes)}">${escapeHtml(token.scopes.join(' ') || t.allScopes)}</td>
          <td data-label="${escapeHtml(c.org)}">${escapeHtml(token.org?.slug ?? t.allOrgs)}</td>
          <td data-label="${escapeHtml(c.created)}">${escapeHtml(token.created_at.slice(0, 10))}</td>
          <td data-label="${escapeHtml(c.lastUsed)}">${escapeHtml(token.last_used_at?.slice(0, 16).replace('T', ' ') ?? t.never)}</td>
          <td data-label="${escapeHtml(c.expires)}">${escapeHtml(token.expires_at?.slice(0, 10) ?? t.never)}</td>
          <td><a href="${escapeHtml(prefix)}/tokens/${encodeURIComponent(token.id)}/revoke" aria-label="` +
      `${escapeHtml(t.revokeLabel(token.name))}">${escapeHtml(t.revoke)}</a></td>
        </tr>`,
  );
  return (
    `    <table>
      <caption>${escapeHtml(t.signedInAs(email))}</caption>
      <thead><tr><th scope="col">${escapeHtml(c.name)}</th><th scope="col">${escapeHtml(c.scopes)}</th>` +
    `<th scope="col">${escapeHtml(c.org)}</th><th scope="col">${escapeHtml(c.created)}</th><th ` +
    `scope="col">${escapeHtml(c.lastUsed)}</th><th scope="col">${escapeHtml(c.expires)}</th><th ` +
    `scope="col"><span class="visually-hidden">${escapeHtml(c.actions)}</span></th></tr></thead>
      <tbody>
${rows.join('\n')}
      </tbody>
    </table>`
  );
}
