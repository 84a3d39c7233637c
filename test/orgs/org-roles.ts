/**
 * The organization roles the HTTP suites define, like the demo's: an owner
 * manages everything in the organization; an admin manages memberships and invitations, assigns
 * admin, member and viewer, and reads and updates the organization; members and viewers read the
 * organization and its members.
 */
import type { ServiceAuth } from '../../src/index.js';

export function defineDemoOrgRoles(auth: ServiceAuth): void {
  auth.defineOrgRole('owner', [{ action: 'manage', subject: 'all' }]);
  auth.defineOrgRole('admin', [
    { action: 'manage', subject: ['Membership', 'Invitation'] },
    { action: 'assign', subject: 'OrgRole', conditions: { name: { $in: ['admin', 'member', 'viewer'] } } },
    { action: ['read', 'update'], subject: 'Organization' },
  ]);
  auth.defineOrgRole('member', [{ action: 'read', subject: ['Organization', 'Membership'] }]);
  auth.defineOrgRole('viewer', [{ action: 'read', subject: ['Organization', 'Membership'] }]);
}
