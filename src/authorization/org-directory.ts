/**
 * What authorization needs of the organizations (the `auth.orgs` service of src/orgs/, wired in):
 * an organization by id or slug, and a user's membership in it. Both are hot paths, cached by the
 * service and kept current through the change feed; declared here so that authorization/ does not
 * depend on how organizations are stored.
 */
export interface OrgInfo {
  id: number;
  slug: string;
  name: string;
  created_at: string;
}

export interface OrgMembership {
  /** The organization roles the member holds there. */
  roles: string[];
  created_at: string;
}

export interface OrgDirectory {
  find(idOrSlug: string | number): Promise<OrgInfo | null>;
  membership(orgId: number, userId: number): Promise<OrgMembership | null>;
  /** `find`'s answer when memory can tell now (the guards' hot path, without a promise); undefined when only `find` can. */
  peek(idOrSlug: string | number): OrgInfo | null | undefined;
  /** `membership`'s answer when memory can tell now; undefined when only `membership` can. */
  peekMembership(orgId: number, userId: number): OrgMembership | null | undefined;
}

/** How service code names an organization: its id, its slug, or the organization (`req.org`). */
export type OrgName = number | string | { readonly id: number; readonly slug: string };
