/**
 * Reading organizations and members with the database alone, so that the CLI's `auth list-orgs`
 * and `auth list-members` start without building the services (like `auth list-users`).
 */
import { raw } from '@mikro-orm/core';
import { Membership, Organization } from '../storage/entities/index.js';
import type { Storage } from '../storage/storage.js';
import { requireOrg } from './context.js';
import { toOrgInfo, type MemberInfo, type OrgRef, type OrgSummary } from './views.js';

/** Every organization (or one page of them), by slug, with how many members it has. */
export async function listOrgs(storage: Storage, page?: { offset: number; limit: number }): Promise<OrgSummary[]> {
  const em = await storage.em();
  const orgs = await em.find(Organization, {}, { orderBy: { slug: 'asc' }, ...page });
  const counts = await em
    .createQueryBuilder(Membership, 'm')
    .select(['m.org', raw('count(*) as members')])
    .where(page ? { org: { $in: orgs.map((org) => org.id) } } : {})
    .groupBy('m.org')
    .execute<{ org: number; members: number | string }[]>();
  const byOrg = new Map(counts.map((row) => [Number(row.org), Number(row.members)]));
  return orgs.map((org) => ({ ...toOrgInfo(org), members: byOrg.get(org.id) ?? 0 }));
}

/** The organization's members, oldest first, with their roles (a 404 `not_found` for an unknown organization). */
export async function listMembers(storage: Storage, ref: OrgRef): Promise<MemberInfo[]> {
  const em = await storage.em();
  const org = await requireOrg(em, ref);
  const rows = await em.find(
    Membership,
    { org: org.id },
    { populate: ['user'], orderBy: { createdAt: 'asc', id: 'asc' } },
  );
  return rows.map((row) => ({
    user_id: row.user.id,
    email: row.user.email,
    roles: [...row.roles].sort(),
    created_at: row.createdAt.toISOString(),
  }));
}
