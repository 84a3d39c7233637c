/** `GET /security-log` for people with browsers: the caller's own audit records (security-log-page.ts). */
import { Router, type RequestHandler } from 'express';
import type { AuditApi } from '../../audit/audit-log.js';
import type { AuthConfig } from '../../config/config.js';
import { securityLogOf } from '../actions/security-log.js';
import { sendPage } from './render.js';
import type { PageTexts } from './texts.js';

export interface SecurityLogPageDeps {
  config: AuthConfig;
  audit: Pick<AuditApi, 'query'>;
  loginRequired: RequestHandler;
  pluggable: { readonly texts: PageTexts };
}

export function securityLogPages({ config, audit, loginRequired, pluggable }: SecurityLogPageDeps): Router {
  const router = Router();
  router.get('/security-log', loginRequired, async (req, res) => {
    const { events, next } = await securityLogOf(audit, req);
    await sendPage(req, res, 200, 'security-log', { prefix: config.urlPrefix, texts: pluggable.texts, email: req.user!.email, events, next });
  });
  return router;
}
