/** The audit log's part of the console: the records, filtered and paged, and the check of the chain. */
import { Router, type Request, type RequestHandler, type Response } from 'express';
import { auditPage } from './audit-page.js';
import { auditQuery, parseQuery } from './query.js';
import { sendAdminPage, type AdminPageBase } from './shell.js';
import type { Notice } from '../layout.js';
import { ADMIN_TEXTS } from './texts.js';
import type { AdminDeps } from './routes.js';

const PAGE_SIZE = 50;
const DAY_MS = 86_400_000;

export function auditRoutes(deps: AdminDeps, gate: RequestHandler[], base: (req: Request) => AdminPageBase): Router {
  const router = Router();

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
    sendAdminPage(res, 200, auditPage({
      ...base(req),
      notice,
      filters: { type, email, since: day(since), until: day(until) },
      records: shown,
      olderThan: records.length > PAGE_SIZE ? shown.at(-1)!.id : null,
      paged: before !== undefined,
    }));
  };

  router.get('/admin/audit', ...gate, (req, res) => show(req, res, null));

  // Reads, and changes nothing: answered with the result at once rather than a redirect, since an
  // address that said "intact" could be handed to an operator who never verified anything.
  router.post('/admin/audit/verify', ...gate, async (req, res) => {
    const check = await deps.audit.verify();
    const t = ADMIN_TEXTS.audit;
    const notice: Notice = check.intact ? { kind: 'info', text: t.intact(check.rows, check.first, check.last) } : { kind: 'error', text: t.broken(check.brokenAt, check.why) };
    await show(req, res, notice);
  });

  return router;
}
