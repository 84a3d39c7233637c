/**
 * The built-in pages' only style sheet and scripts, all inline, and the Content-Security-Policy
 * that allows exactly these by hash. Nothing else may load or run on a page that can show a
 * freshly created token, the forms may only post to this site, and scripts may only call it.
 */
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';

/** Small, readable on a phone (one column, large touch targets), no web fonts. */
export const STYLESHEET = `
*, *::before, *::after { box-sizing: border-box; }
body {
  font: 1.0625rem/1.5 system-ui, -apple-system, "Segoe UI", Roboto, sans-serif; color: #1b1f24;
  background: #f6f7f9; margin: 0;
}
header { background: #1f3a5f; padding: .6rem 1rem; }
header a { color: #fff; font-weight: 600; }
main {
  max-width: 34rem; margin: 1.5rem auto; padding: 1.25rem 1rem 2rem; background: #fff; border-radius: .5rem;
  box-shadow: 0 1px 3px rgb(0 0 0 / .12);
}
main.wide { max-width: 52rem; }
h1 { font-size: 1.6rem; line-height: 1.2; margin: 0 0 1rem; }
h2 { font-size: 1.2rem; margin: 1.75rem 0 .5rem; }
a { color: #0b57b8; }
.field { margin-top: 1rem; }
label { display: block; font-weight: 600; }
.hint { margin: .1rem 0 .3rem; color: #505a66; font-size: .95rem; }
input {
  font: inherit; width: 100%; padding: .55rem .6rem; border: 2px solid #5b6673; border-radius: .3rem;
  background: #fff;
}
select, textarea {
  font: inherit; width: 100%; padding: .5rem .6rem; border: 2px solid #5b6673; border-radius: .3rem;
  background: #fff; color: #1b1f24;
}
input:focus, button:focus, a:focus, select:focus, textarea:focus { outline: 3px solid #ffbf47; outline-offset: 1px; }
dl { display: grid; grid-template-columns: max-content 1fr; gap: .2rem 1rem; }
dt { font-weight: 600; }
dd { margin: 0; }
.reach-all { background: #e3f3e8; color: #134a2b; }
.reach-some { background: #fff4d6; color: #5c4200; }
.reach-none { color: #505a66; }
fieldset { border: 0; padding: 0; margin: 1rem 0 0; }
legend { font-weight: 600; padding: 0; }
.choices { display: flex; flex-wrap: wrap; gap: .25rem 1rem; }
.choices label { display: inline-flex; align-items: center; gap: .35rem; font-weight: 400; }
input[type=checkbox] { width: auto; margin: 0; }
td form { margin: 0; }
td fieldset { margin: 0; }
time { white-space: nowrap; }
.invalid { border-left: 4px solid #b3261e; padding-left: .75rem; }
.invalid input { border-color: #b3261e; }
.field-error { color: #b3261e; font-weight: 600; margin: .1rem 0 .3rem; }
.field-error ul { margin: .2rem 0 0; padding-left: 1.25rem; }
button {
  font: inherit; font-weight: 600; margin-top: 1.25rem; padding: .6rem 1.4rem; border: 0;
  border-radius: .3rem; background: #1f6f43; color: #fff; cursor: pointer;
}
button.secondary { background: #e3e7ec; color: #1b1f24; margin-top: .5rem; }
a.button {
  display: inline-block; font-weight: 600; margin-top: .5rem; padding: .6rem 1.4rem; border-radius: .3rem;
  background: #e3e7ec; color: #1b1f24; text-decoration: none;
}
button.danger { background: #b3261e; }
.notice, .error-summary { padding: .75rem 1rem; border-radius: .3rem; margin: 0 0 1rem; }
.notice p, .error-summary p { margin: 0; }
.error { background: #fdecea; color: #7a1410; }
.info { background: #e8f1fc; color: #0b3a7a; }
.error-summary { border: 3px solid #b3261e; background: #fff; }
.error-summary h2 { margin: 0 0 .3rem; font-size: 1.1rem; }
.error-summary ul { margin: 0; padding-left: 1.25rem; }
.error-summary a { color: #b3261e; font-weight: 600; }
.created h2 { margin-top: 0; }
.impersonation { background: #fff4ce; color: #3d2e00; padding: .4rem 1rem; border-bottom: 3px solid #8a6100; }
.impersonation p { margin: 0; }
.impersonation button { margin: 0 0 0 .5rem; padding: .25rem .9rem; background: #3d2e00; }
.secret {
  display: block; font: .95rem/1.4 ui-monospace, "SFMono-Regular", Menlo, Consolas, monospace;
  word-break: break-all; background: #fff; color: #1b1f24; border: 1px dashed #5b6673; border-radius: .3rem;
  padding: .5rem .6rem; user-select: all;
}
.actions { display: flex; flex-wrap: wrap; gap: .75rem 1.25rem; align-items: center; margin-top: 1.25rem; }
.actions button { margin-top: 0; }
td button { margin-top: 0; padding: .35rem .9rem; }
table { border-collapse: collapse; width: 100%; margin-top: .5rem; }
caption { text-align: left; color: #505a66; padding-bottom: .25rem; }
th, td { text-align: left; padding: .45rem .5rem; border-bottom: 1px solid #dde2e8; vertical-align: top; }
code { word-break: break-all; }
.visually-hidden {
  position: absolute; width: 1px; height: 1px; margin: -1px; overflow: hidden; clip: rect(0 0 0 0);
  white-space: nowrap; border: 0;
}
@media (max-width: 40rem) {
  body { background: #fff; }
  main { margin: 0; border-radius: 0; box-shadow: none; }
  thead { position: absolute; width: 1px; height: 1px; overflow: hidden; clip: rect(0 0 0 0); }
  caption { display: block; }
  table, tbody, tr, td { display: block; width: 100%; }
  tr { border: 1px solid #dde2e8; border-radius: .3rem; padding: .4rem .6rem; margin-bottom: .75rem; }
  td { border: 0; padding: .15rem 0; }
  td[data-label]::before { content: attr(data-label) ": "; font-weight: 600; }
}
`;

/**
 * Progressive enhancement for the "Copy" button of a new token: without JavaScript the button stays
 * hidden and the token (selectable with one click, `user-select: all`) is copied by hand.
 */
export const COPY_SCRIPT = `
for (const button of document.querySelectorAll('button[data-copy]')) {
  const source = document.getElementById(button.dataset.copy);
  const status = document.getElementById(button.dataset.status);
  button.hidden = false;
  button.addEventListener('click', async () => {
    try {
      await navigator.clipboard.writeText(source.textContent.trim());
      status.textContent = button.dataset.copied;
    } catch {
      getSelection().selectAllChildren(source);
      status.textContent = button.dataset.failed;
    }
  });
}
`;

/**
 * @simplewebauthn/browser, as its own build ships it (the global `SimpleWebAuthnBrowser`), inlined
 * into the pages that use passkeys: served by the package, never from a CDN.
 */
export const WEBAUTHN_BROWSER = readFileSync(
  join(
    dirname(createRequire(import.meta.url).resolve('@simplewebauthn/browser')),
    '..',
    'dist',
    'bundle',
    'index.umd.min.js',
  ),
  'utf8',
);

/**
 * The passkey buttons (progressive enhancement: hidden without JavaScript, or without WebAuthn).
 * `data-passkey` is `register` (the passkeys page) or `login` (the login page, and its second
 * step, which sends its `data-ticket` along); the options and the browser's answer go to this
 * site's JSON endpoints named by `data-options` and `data-verify`. Registering sends the password
 * typed in the field `data-password` names.
 */
export const PASSKEY_SCRIPT = `
const post = async (path, body) => {
  const headers = { 'Content-Type': 'application/json', Accept: 'application/json' };
  const response = await fetch(path, { method: 'POST', headers, body: JSON.stringify(body) });
  const json = await response.json();
  if (!response.ok) throw Object.assign(new Error(json.detail), { code: json.code });
  return json;
};
for (const button of document.querySelectorAll('button[data-passkey]')) {
  if (!window.PublicKeyCredential) continue;
  const status = document.getElementById(button.dataset.status);
  button.hidden = false;
  const ticket = button.dataset.ticket;
  button.addEventListener('click', async () => {
    status.textContent = '';
    try {
      const password = button.dataset.password && document.getElementById(button.dataset.password);
      const asked = ticket ? { ticket } : password ? { password: password.value } : {};
      const optionsJSON = await post(button.dataset.options, asked).catch((error) => {
        throw Object.assign(error, { atOptions: true });
      });
      if (button.dataset.passkey === 'register') {
        const response = await SimpleWebAuthnBrowser.startRegistration({ optionsJSON });
        await post(button.dataset.verify, { response, name: document.getElementById(button.dataset.name).value || undefined });
        location.assign(button.dataset.done);
      } else {
        const response = await SimpleWebAuthnBrowser.startAuthentication({ optionsJSON });
        await post(button.dataset.verify, ticket ? { ticket, passkey: response } : { response });
        location.assign(button.dataset.done);
      }
    } catch (error) {
      // Only the options call takes the password: a refusal of the browser's answer is not about it.
      const passwordRefused = error.atOptions && (error.code === 'invalid_credentials' || error.code === 'bad_request');
      status.textContent = passwordRefused && button.dataset.passwordRefused ? button.dataset.passwordRefused : button.dataset.failed;
    }
  });
}
`;

const hash = (text: string) => `'sha256-${createHash('sha256').update(text, 'utf8').digest('base64')}'`;

/** For the built-in pages: only their own style and script, forms to this site only, no framing. */
export const BUILT_IN_CSP = [
  "default-src 'none'",
  `style-src ${hash(STYLESHEET)}`,
  `script-src ${hash(COPY_SCRIPT)} ${hash(WEBAUTHN_BROWSER)} ${hash(PASSKEY_SCRIPT)}`,
  "connect-src 'self'",
  "form-action 'self'",
  "base-uri 'none'",
  "frame-ancestors 'none'",
].join('; ');

/** For an application's own templates, which may load what they like: only the framing rule. */
export const APPLICATION_VIEW_CSP = "frame-ancestors 'none'";
