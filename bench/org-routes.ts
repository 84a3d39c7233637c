/**
 * The bench server's part of the organization figures (bench/orgs.ts): the two routes of the
 * ratio, the organization they are asked in, and the 1,000 organizations × 10 members of the
 * statements figure, written directly.
 */
import type { EntityManager } from '@mikro-orm/core';
import type { Express, Request, Response } from 'express';
import type { ServiceAuth } from '../dist/src/index.js';
import { Membership, Organization, Session, User } from '../dist/src/storage/entities/index.js';
import { sessionRow } from './credential-rows.js';

/** The organization role of the bench's route: it reads the organization's projects. */
export const ORG_READER = 'bench_project_reader';
export const BENCH_ORG = 'bench-org';

/**
 * The routes of the ratio, and the role they need (before the error handler): the unguarded route
 * is registered on both sides of the guarded one, since each route Express tries before the one
 * that answers costs a match.
 */
export function orgRoutes(app: Express, auth: ServiceAuth): void {
  auth.defineOrgRole('owner', [{ action: 'manage', subject: 'all' }]);
  auth.defineOrgRole(ORG_READER, [{ action: 'read', subject: 'Project' }]);
  const ok = (_req: Request, res: Response) => {
    res.json({ ok: true });
  };
  app.get('/orgs/:org/open', ok);
  app.get('/orgs/:org/guarded', auth.orgRequired(), auth.require({ action: 'read', subject: 'Project' }), ok);
  app.get('/orgs/:org/open-after', ok);
}

/**
 * `orgs` organizations of `members` users each, every user with a session, written directly (in
 * the bench server): users without a usable password, members who read the organization's
 * projects. Answers each member's organization and session secret.
 */
export async function writeOrgMembers(
  em: EntityManager,
  orgs: number,
  members: number,
): Promise<{ slug: string; secret: string }[]> {
  const written: { slug: string; secret: string }[] = [];
  const now = new Date();
  for (let o = 0; o < orgs; o++) {
    const slug = `scale-${o}`;
    await em.insertMany(Organization, [{ slug, name: slug, createdAt: now }]);
    const org = (await em.findOneOrFail(Organization, { slug })).id;
    const emails = Array.from({ length: members }, (_, m) => `scale-${o}-${m}@example.com`);
    await em.insertMany(
      User,
      emails.map((email) => ({ email, passwordHash: '!', isAdmin: false, createdAt: now, updatedAt: now })),
    );
    const userIds = (await em.find(User, { email: { $in: emails } }, { fields: ['id'] })).map((row) => row.id);
    await em.insertMany(
      Membership,
      userIds.map((id) => ({ org, user: id, roles: [ORG_READER], createdAt: now })),
    );
    const sessions = userIds.map((id) => {
      const { row, secret } = sessionRow(id);
      written.push({ slug, secret });
      return row;
    });
    await em.insertMany(Session, sessions);
  }
  return written;
}
