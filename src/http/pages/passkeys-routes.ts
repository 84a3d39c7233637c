/** `GET /passkeys` for people with browsers, and its remove buttons' posts (passkeys-page.ts). */
import type { Request, Response } from 'express';
import type { AuthConfig } from '../../config/config.js';
import type { MfaActions } from '../actions/mfa.js';
import type { GuardKit } from '../endpoints/guard-kit.js';
import { EndpointRouter } from '../endpoints/mount.js';
import { pathId, queryParameter } from '../openapi/operations.js';
import { redirect } from '../openapi/responses.js';
import { formRoute, type FormRoute } from './forms.js';
import type { Notice } from './layout.js';
import { formOnly, ownPage, UNSAFE } from './page-endpoints.js';
import { sendPage } from './render.js';
import type { PageTexts } from './texts.js';

export const passkeysPage = ownPage(
  '/passkeys',
  'passkeysPage',
  'The passkeys page: the caller’s passkeys, a button to remove each and one to add another (with JavaScript)',
  'Adding goes through `POST /api/passkeys/options` and `POST /api/passkeys`; the remove buttons post to' +
    ' `POST /passkeys/{id}/remove`.',
  [
    queryParameter('added', '`1`: says a passkey was added'),
    queryParameter('removed', '`1`: says a passkey was removed'),
  ],
);

export const removePasskeyForm = formOnly({
  path: '/passkeys/:id/remove',
  operationId: 'removePasskeyForm',
  summary: 'Remove a passkey (the passkeys page’s button)',
  description: ({ config }) =>
    'As `DELETE /api/passkeys/{id}`, which a form cannot send; another user’s passkey is a 404, like an unknown id.' +
    ` Answered with a 303 to \`${config.urlPrefix}/passkeys?removed=1\`.`,
  parameters: [pathId('The credential id (`id` in the list)')],
  responses: { 303: redirect('Removed: to the passkeys page') },
  refusals: UNSAFE,
});

export const PASSKEY_PAGES = [passkeysPage, removePasskeyForm];

export interface PasskeyPageDeps {
  config: AuthConfig;
  mfa: MfaActions;
  pluggable: { readonly texts: PageTexts };
}

export function passkeyPages({ config, mfa, pluggable }: PasskeyPageDeps, kit: GuardKit): EndpointRouter {
  const prefix = config.urlPrefix;
  const show = async (req: Request, res: Response, status: number, notice: Notice | null): Promise<void> => {
    const passkeys = await mfa.passkeys(req);
    const locals = { prefix, texts: pluggable.texts, email: req.user!.email, passkeys, notice };
    await sendPage(req, res, status, 'passkeys', locals);
  };
  const removeForm: FormRoute = { fields: [], page: () => `${prefix}/passkeys`, showAgain: async () => false };
  const noticeOf = (req: Request): Notice | null => {
    const t = pluggable.texts.passkeys;
    if (req.query['added'] === '1') return { kind: 'info', text: t.added };
    return req.query['removed'] === '1' ? { kind: 'info', text: t.removed } : null;
  };

  return new EndpointRouter(kit)
    .on(passkeysPage, (req, res) => show(req, res, 200, noticeOf(req)))
    .on(
      removePasskeyForm,
      async (req, res) => {
        await mfa.removePasskey(req, String(req.params['id']));
        res.redirect(303, `${prefix}/passkeys?removed=1`);
      },
      { form: formRoute(removeForm) },
    );
}
