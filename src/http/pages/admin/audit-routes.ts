/** The audit log's part of the console: the records, filtered and paged, and the check of the chain. */
import type { Request, Response } from 'express';
import { endpoint } from '../../endpoints/endpoint.js';
import type { GuardKit } from '../../endpoints/guard-kit.js';
import { tokenFailuresNote } from '../../endpoints/guards.js';
import { EndpointRouter } from '../../endpoints/mount.js';
import { queryParameter } from '../../openapi/operations.js';
import { page } from '../../openapi/responses.js';
import { consoleGuard, consolePage } from './admin-endpoints.js';
import { auditPage } from './audit-page.js';
import { auditQuery, parseQuery } from './query.js';
import { sendAdminPage, type AdminPageBase } from './shell.js';
import type { Notice } from '../layout.js';
import { ADMIN_TEXTS } from './texts.js';
import type { AdminDeps } from './routes.js';

const PAGE_SIZE = 50;
const DAY_MS = 86_400_000;

export const adminAudit = consolePage({
  path: '/admin/audit',
  operationId: 'adminAudit',
  summary: 'The audit log, 50 a page, newest first, filtered',
  needs: '`read AuditRecord`',
  section: 'audit',
  parameters: [
    queryParameter('type', 'One of the audit log’s types'),
    queryParameter('email', 'The records of this person'),
    queryParameter('since', 'From this day (YYYY-MM-DD, UTC)'),
    queryParameter('until', 'To this day, included (YYYY-MM-DD, UTC)'),
    queryParameter('before', 'A record id: the records older than it (the “Older records” link’s)'),
  ],
});

export const adminVerifyAuditChain = endpoint({
  method: 'post',
  path: '/admin/audit/verify',
  operationId: 'adminVerifyAuditChain',
  summary:
    'Verify the audit log’s chain: answered with the audit log page saying whether it is intact, or where it breaks',
  description: ({ config }) =>
    'Needs `read AuditRecord` on every record. Changes nothing, so it is answered with the page itself rather than a' +
    ` redirect.${tokenFailuresNote(config)}`,
  tags: ['admin'],
  guards: [consoleGuard('audit')],
  responses: { 200: page('The audit log page with the result') },
  refusals: ['bad_request'],
});

export function auditRoutes(deps: AdminDeps, kit: GuardKit, base: (req: Request) => AdminPageBase): EndpointRouter {
  const show = async (req: Request, res: Response, notice: Notice | null) => {
    const { type, email, since, until, before } = parseQuery(auditQuery, req);
    const records = await deps.audit.query({
      ...(type && { type }),
      ...(email && { email }),
      ...(since && { since }),
      // The last day is included: records before the next one.
      ...(until && { until: new Date(until.getTime() + DAY_MS) }),
      ...(before && { before }),
      limit: PAGE_SIZE + 1,
    });
    const shown = records.slice(0, PAGE_SIZE);
    const day = (date: Date | undefined) => date?.toISOString().slice(0, 10);
    sendAdminPage(
      res,
      200,
      auditPage({
        ...base(req),
        notice,
        filters: { type, email, since: day(since), until: day(until) },
        records: shown,
        olderThan: records.length > PAGE_SIZE ? shown.at(-1)!.id : null,
        paged: before !== undefined,
      }),
    );
  };

  const routes = new EndpointRouter(kit).on(adminAudit, (req, res) => show(req, res, null));

  // Reads, and changes nothing: answered with the result at once rather than a redirect, since an
  // address that said "intact" could be handed to an operator who never verified anything.
  return routes.on(adminVerifyAuditChain, async (req, res) => {
    const check = await deps.audit.verify();
    const t = ADMIN_TEXTS.audit;
    const notice: Notice = check.intact
      ? { kind: 'info', text: t.intact(check.rows, check.first, check.last) }
      : { kind: 'error', text: t.broken(check.brokenAt, check.why) };
    await show(req, res, notice);
  });
}
