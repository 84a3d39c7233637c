/**
 * The organization endpoints' response bodies: what the OpenAPI description
 * says they answer, and what the test suites check every response against.
 */
import { z } from 'zod';
import { timestamp } from './responses.js';
import { SLUG } from './orgs.js';

const id = z.number().int().positive();
const roles = z.array(z.string()).meta({ description: 'Organization role names' });

export const organizationSchema = z
  .object({
    id,
    slug: z.string().regex(SLUG).meta({ description: 'Its name in URLs; `{org}` is this or the id' }),
    name: z.string().min(1).max(100),
    created_at: timestamp,
  })
  .meta({ id: 'Organization' });

/** `POST /api/orgs` (201), `GET` and `PATCH /api/orgs/{org}`. */
export const organizationResponse = z.object({ org: organizationSchema }).meta({ id: 'OrganizationResponse' });

/** `GET /api/orgs`: the caller's organizations, each with the caller's roles there. */
export const myOrganizationListResponse = z
  .object({
    orgs: z.array(
      organizationSchema
        .extend({ roles: roles.meta({ description: 'The caller’s organization roles there' }) })
        .meta({ id: 'MyOrganization' }),
    ),
  })
  .meta({ id: 'MyOrganizationList' });

export const memberSchema = z
  .object({
    user_id: id,
    email: z.string().meta({ description: 'Lower-cased' }),
    roles,
    created_at: timestamp.meta({ description: 'When they joined' }),
  })
  .meta({ id: 'Member' });

/** `GET /api/orgs/{org}/members`. */
export const memberListResponse = z.object({ members: z.array(memberSchema) }).meta({ id: 'MemberList' });

/** `PATCH /api/orgs/{org}/members/{user_id}`. */
export const memberResponse = z.object({ member: memberSchema }).meta({ id: 'MemberResponse' });

/** An invitation as listed: never its token. */
export const invitationSchema = z
  .object({
    id: id.meta({ description: 'DELETE /api/orgs/{org}/invitations/{id}' }),
    email: z.string().meta({ description: 'The invited address, lower-cased' }),
    roles,
    created_at: timestamp,
    expires_at: timestamp.meta({ description: 'SERVICE_AUTH_INVITATION_TTL after it was made' }),
  })
  .meta({ id: 'Invitation' });

/** `POST /api/orgs/{org}/invitations` (201). */
export const invitationResponse = z.object({ invitation: invitationSchema }).meta({ id: 'InvitationResponse' });

/** `GET /api/orgs/{org}/invitations`: those still pending (not accepted, revoked or expired). */
export const invitationListResponse = z
  .object({ invitations: z.array(invitationSchema) })
  .meta({ id: 'InvitationList' });

/** `POST /api/invitations/accept`: the organization joined, and the roles now held there. */
export const acceptedInvitationResponse = z
  .object({ org: organizationSchema, roles })
  .meta({ id: 'AcceptedInvitation' });

export type OrgView = z.output<typeof organizationSchema>;
export type MyOrgView = z.output<typeof myOrganizationListResponse>['orgs'][number];
export type MemberView = z.output<typeof memberSchema>;
export type InvitationView = z.output<typeof invitationSchema>;
