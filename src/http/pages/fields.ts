/**
 * Form fields with their label, hint and error. The error sits between the label and the input and
 * is tied to the input by `aria-describedby`; the first invalid field gets `autofocus`, so focus
 * lands on the first problem without a script; a summary above the form links to each field.
 */
import { escapeHtml } from './html.js';
import type { PageTexts } from './texts.js';

export interface FieldError {
  message: string;
  /** Further lines, e.g. every password rule that failed. */
  items?: string[] | undefined;
}

/** Errors of a refused form, by field name. */
export type FieldErrors = Record<string, FieldError>;

export interface FieldSpec {
  name: string;
  label: string;
  type?: string;
  /** Echoed back (escaped); never set for passwords. */
  value?: string | number | undefined;
  hint?: string | undefined;
  /** Further attributes, written as they are: constants only, never user input. */
  attributes?: string;
  /** Makes it a `<select>` of these choices, the one whose value is `value` chosen. */
  options?: { value: string; label: string }[] | undefined;
}

/** The fields, each with its error, and the summary of those errors (empty when there are none). */
export function renderFields(
  specs: FieldSpec[],
  errors: FieldErrors | null | undefined,
  texts: PageTexts,
): { fields: string; summary: string } {
  const invalid = specs.filter((spec) => errors?.[spec.name]);
  const fields = specs.map((spec) => field(spec, errors?.[spec.name], spec === invalid[0], texts)).join('');
  const summary = invalid.length
    ? `    <div class="error-summary" role="alert" aria-labelledby="error-summary-title">
      <h2 id="error-summary-title">${escapeHtml(texts.errorSummary)}</h2>
      <ul>` +
      `${invalid
        .map((spec) => `<li><a href="#${spec.name}">${escapeHtml(summaryLine(spec, errors![spec.name]!))}</a></li>`)
        .join('')}</ul>
    </div>\n`
    : '';
  return { fields, summary };
}

/** "Email: Fill in this field."; a message with items names its field already ("The password needs: …"). */
function summaryLine(spec: FieldSpec, error: FieldError): string {
  return error.items?.length ? `${error.message} ${error.items.join(', ')}` : `${spec.label}: ${error.message}`;
}

function field(spec: FieldSpec, error: FieldError | undefined, autofocus: boolean, texts: PageTexts): string {
  const { name } = spec;
  const describedBy = [error ? `${name}-error` : '', spec.hint ? `${name}-hint` : ''].filter(Boolean).join(' ');
  const hint = spec.hint ? `\n        <p class="hint" id="${name}-hint">${escapeHtml(spec.hint)}</p>` : '';
  const items = error?.items?.length
    ? `<ul>${error.items.map((item) => `<li>${escapeHtml(item)}</li>`).join('')}</ul>`
    : '';
  const message = error
    ? `\n        <div class="field-error" id="${name}-error"><span ` +
      `class="visually-hidden">${escapeHtml(texts.errorPrefix)} ` +
      `</span>${escapeHtml(error.message)}${items}</div>`
    : '';
  const extra = [
    spec.attributes ?? '',
    describedBy ? `aria-describedby="${describedBy}"` : '',
    error ? 'aria-invalid="true"' : '',
    autofocus ? 'autofocus' : '',
  ].filter(Boolean);
  return `
      <div class="field${error ? ' invalid' : ''}">
        <label for="${name}">${escapeHtml(spec.label)}</label>${hint}${message}
        ${control(spec, extra)}
      </div>`;
}

function control(spec: FieldSpec, extra: string[]): string {
  const { name } = spec;
  const attributes = extra.length ? ` ${extra.join(' ')}` : '';
  if (spec.options) {
    const chosen = String(spec.value ?? '');
    const options = spec.options.map(
      (o) =>
        `<option ` +
        `value="${escapeHtml(o.value)}"${o.value === chosen ? ' selected' : ''}>${escapeHtml(o.label)}</option>`,
    );
    return `<select id="${name}" name="${name}"${attributes}>${options.join('')}</select>`;
  }
  const value = spec.value === undefined ? '' : ` value="${escapeHtml(spec.value)}"`;
  return `<input id="${name}" name="${name}" type="${spec.type ?? 'text'}"${value}${attributes}>`;
}
