/** `GET /api/security-log?before=<id>`: the caller's own audit records, with a session or a token without scopes. */
import { Router, type RequestHandler } from 'express';
import type { AuditApi } from '../../audit/audit-log.js';
import { securityLogOf } from '../actions/security-log.js';

export function securityLogApi(audit: Pick<AuditApi, 'query'>, loginRequired: RequestHandler): Router {
  const api = Router();
  api.get('/', loginRequired, async (req, res) => {
    res.json(await securityLogOf(audit, req));
  });
  return api;
}
