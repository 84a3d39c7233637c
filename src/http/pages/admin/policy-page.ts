/**
 * `GET /admin/policy`: the policy explorer. The matrix of roles × subject types × actions, each
 * cell how far the role reaches (reach.ts); and "why": for a user, an action and a subject type
 * (with field values, in an organization if given), the answer of `auth.explain`: the rule that
 * decided, and for a refusal each rule that could have allowed it and the condition it failed.
 */
import { isAbsolute, relative } from 'node:path';
import type { Explanation, ExplainedRule, WhyNotRule } from '../../../authorization/explain.js';
import type { RoleReach } from '../../../authorization/reach.js';
import type { FieldErrors } from '../fields.js';
import { escapeHtml } from '../html.js';
import { adminLayout, type AdminPageBase } from './shell.js';
import { ADMIN_TEXTS } from './texts.js';

export interface WhyValues {
  email?: string | undefined;
  action?: string | undefined;
  subject?: string | undefined;
  org?: string | undefined;
  fields?: string | undefined;
}

export interface PolicyPageLocals extends AdminPageBase {
  matrix: RoleReach[];
  actions: string[];
  subjects: string[];
  why: WhyValues;
  /** The answer to the "why" form, when it was asked and could be answered. */
  explanation: Explanation | null;
  errors: FieldErrors | null;
}

export function policyPage(locals: PolicyPageLocals): string {
  const t = ADMIN_TEXTS.policy;
  const body = `    <h2>${escapeHtml(t.why)}</h2>
${whyForm(locals)}
${locals.explanation ? answer(locals.explanation, locals.why) : ''}
    <h2>${escapeHtml(t.matrix)}</h2>
    <p class="hint">${escapeHtml(t.matrixHint)}</p>
${matrixTables(locals)}`;
  return adminLayout(locals, 'policy', ADMIN_TEXTS.sections.policy, body);
}

function whyForm({ prefix, why, errors }: PolicyPageLocals): string {
  const t = ADMIN_TEXTS.policy;
  const field = (name: keyof WhyValues, label: string, hint?: string) => {
    const error = errors?.[name];
    const described = [hint && `${name}-hint`, error && `${name}-error`].filter(Boolean).join(' ');
    const aria = `${described ? ` aria-describedby="${described}"` : ''}${error ? ' aria-invalid="true"' : ''}`;
    const value = escapeHtml(why[name] ?? '');
    const control =
      name === 'fields'
        ? `<textarea id="${name}" name="${name}" rows="3"${aria}>${value}</textarea>`
        : `<input id="${name}" name="${name}" type="text" value="${value}"${aria}>`;
    const hintHtml = hint ? `<p class="hint" id="${name}-hint">${escapeHtml(hint)}</p>` : '';
    const errorHtml = error ? `<p class="field-error" id="${name}-error">${escapeHtml(error.message)}</p>` : '';
    const labelHtml = `<label for="${name}">${escapeHtml(label)}</label>`;
    return `      <div class="field${error ? ' invalid' : ''}">${labelHtml}${hintHtml}${errorHtml}${control}</div>`;
  };
  return `    <form method="get" action="${escapeHtml(`${prefix}/admin/policy`)}">
      <p class="hint">${escapeHtml(t.whyHint)}</p>
${field('email', t.email)}
${field('action', t.action)}
${field('subject', t.subjectType)}
${field('org', t.org)}
${field('fields', t.fields, t.fieldsHint)}
      <button type="submit">${escapeHtml(t.ask)}</button>
    </form>`;
}

function answer(explanation: Explanation, why: WhyValues): string {
  const t = ADMIN_TEXTS.policy;
  const [email, action, subject] = [why.email ?? '', why.action ?? '', why.subject ?? ''];
  const verdict = explanation.allowed ? t.allowed(email, action, subject) : t.denied(email, action, subject);
  const decided = explanation.policy
    ? `<p>${escapeHtml(t.policyDecided(explanation.policy))}</p>`
    : explanation.rule
      ? `<p>${escapeHtml(t.decidedBy)}: ${ruleHtml(explanation.rule)}</p>`
      : `<p>${escapeHtml(t.noRule)}</p>`;
  const items = (explanation.why_not ?? []).map(
    (item) => `<li>${ruleHtml(item.rule)}: ${escapeHtml(whyNotText(item))}</li>`,
  );
  const whyNot = items.length ? `<h3>${escapeHtml(t.whyNot)}</h3><ul>${items.join('')}</ul>` : '';
  const kind = explanation.allowed ? 'info' : 'error';
  const verdictHtml = `<p id="verdict"><strong>${escapeHtml(verdict)}</strong></p>`;
  return `    <section class="notice ${kind}" aria-labelledby="verdict">${verdictHtml}${decided}${whyNot}</section>`;
}

/** A rule as a line: role, position, file, what it says. */
function ruleHtml(rule: ExplainedRule): string {
  const where = [
    rule.role === null ? null : `${rule.org_role ? 'org role' : 'role'} “${rule.role}”`,
    rule.index === undefined ? null : `rule ${rule.index}`,
    rule.source === undefined ? null : shortPath(rule.source),
  ]
    .filter(Boolean)
    .join(', ');
  const says = JSON.stringify({
    action: rule.action,
    subject: rule.subject,
    ...(rule.conditions && { conditions: rule.conditions }),
    ...(rule.fields && { fields: rule.fields }),
    ...(rule.inverted && { inverted: true }),
    ...(rule.reason && { reason: rule.reason }),
  });
  return `${escapeHtml(where || 'a rule')} <code>${escapeHtml(says)}</code>`;
}

/** A rule file's path from the application's directory, when it is in it. */
function shortPath(path: string): string {
  const short = relative(process.cwd(), path);
  return short.startsWith('..') || isAbsolute(short) ? path : short;
}

function whyNotText({ failed, refused_by }: WhyNotRule): string {
  const t = ADMIN_TEXTS.policy;
  if (failed) {
    const wanted = `${failed.field ?? ''} ${failed.operator} ${JSON.stringify(failed.expected)}`.trim();
    if (failed.missing) return `${t.failed} (${wanted}): ${t.missing}`;
    return `${t.failed} (${wanted}; the subject has ${JSON.stringify(failed.actual)})`;
  }
  if (refused_by) {
    const by = refused_by.role ? `role “${refused_by.role}”` : 'a rule';
    return `${t.refusedBy} (${by}${refused_by.reason ? `: ${refused_by.reason}` : ''})`;
  }
  return '';
}

function matrixTables({ matrix, actions, subjects }: PolicyPageLocals): string {
  const t = ADMIN_TEXTS.policy;
  if (matrix.length === 0) return `    <p>${escapeHtml(t.noRoles)}</p>`;
  const tableOf = (role: RoleReach) => {
    const actionHeads = actions.map((action) => `<th scope="col">${escapeHtml(action)}</th>`).join('');
    const head = `<th scope="col">${escapeHtml(t.subject)}</th>${actionHeads}`;
    const rows = subjects.map((subject) => {
      const cells = actions.map((action) => {
        const reach = role.reach[subject]?.[action] ?? 'none';
        return `<td data-label="${escapeHtml(action)}" class="reach-${reach}">${escapeHtml(t.reach[reach])}</td>`;
      });
      return `        <tr><th scope="row">${escapeHtml(subject)}</th>${cells.join('')}</tr>`;
    });
    return `    <table>
      <caption>${escapeHtml(`${role.org ? t.orgRoles : t.globalRoles}: ${role.role}`)}</caption>
      <thead><tr>${head}</tr></thead>
      <tbody>
${rows.join('\n')}
      </tbody>
    </table>`;
  };
  return matrix.map(tableOf).join('\n');
}
