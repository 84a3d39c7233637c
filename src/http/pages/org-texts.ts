/**
 * The words of the organization pages (`/orgs`, `/orgs/<org>`) and of the invitation link's page.
 * Part of `PageTexts` (texts.ts), which freezes them with the rest; kept in a file of their own
 * only for its size.
 */

export interface OrgTexts {
  orgs: {
    title: string;
    /** Above the list: whose organizations these are. */
    signedInAs(email: string): string;
    none: string;
    columns: { name: string; slug: string; roles: string };
    noRoles: string;
    createHeading: string;
    name: string;
    slug: string;
    slugHint: string;
    submit: string;
    /** SERVICE_AUTH_ORG_CREATION is `admins` and the user is not one. */
    creationClosed: string;
    /** After leaving one. */
    left: string;
  };
  org: {
    /** The page's title: the organization's name. */
    title(name: string): string;
    slugLine(slug: string): string;
    yourRoles(roles: string): string;
    membersHeading: string;
    columns: { email: string; roles: string; joined: string; actions: string };
    you: string;
    rolesLegend(email: string): string;
    saveRoles: string;
    saveRolesLabel(email: string): string;
    remove: string;
    removeLabel(email: string): string;
    invitationsHeading: string;
    noInvitations: string;
    invitationColumns: { email: string; roles: string; expires: string; actions: string };
    revoke: string;
    revokeLabel(email: string): string;
    inviteHeading: string;
    inviteEmail: string;
    inviteRoles: string;
    inviteSubmit: string;
    leaveHeading: string;
    leaveHint: string;
    leave: string;
    back: string;
    rolesChanged: string;
    removed: string;
    invited: string;
    revoked: string;
    joined: string;
  };
  invitation: {
    title: string;
    /** The signed-in user may accept: what they are joining, with which roles. */
    question(org: string, roles: string): string;
    accept: string;
    /** Not signed in. */
    signIn: string;
    logIn: string;
    register: string;
    /** Signed in with another address than the one invited, or with it unconfirmed. */
    otherAccount(email: string): string;
    unconfirmed: string;
    logOut: string;
    /** Accepting found the user a member already. */
    member: string;
    openOrg: string;
    /** Unknown, used, revoked or expired. */
    unusable: string;
  };
  /** Refusals shown beside a field, or above the forms. */
  orgErrors: {
    name: string;
    slug: string;
    slugTaken: string;
    /** Creating one more than SERVICE_AUTH_MAX_ORGS_PER_USER owned. */
    tooMany: string;
    roles: string;
    unknownRole: string;
    lastOwner: string;
    alreadyMember: string;
    notAllowed: string;
  };
}

export const defaultOrgTexts: OrgTexts = {
  orgs: {
    title: 'Organizations',
    signedInAs: (email) => `Organizations of ${email}`,
    none: 'You are not a member of any organization yet.',
    columns: { name: 'Name', slug: 'Slug', roles: 'Your roles' },
    noRoles: 'none',
    createHeading: 'Create an organization',
    name: 'Name',
    slug: 'Slug (optional)',
    slugHint: 'Its name in addresses: 2 to 48 of a-z 0-9 -. Leave empty to make one from the name.',
    submit: 'Create organization',
    creationClosed: 'Only administrators may create organizations here.',
    left: 'You left the organization.',
  },
  org: {
    title: (name) => name,
    slugLine: (slug) => `Slug: ${slug}`,
    yourRoles: (roles) => `Your roles here: ${roles}`,
    membersHeading: 'Members',
    columns: { email: 'Email', roles: 'Roles', joined: 'Joined', actions: 'Actions' },
    you: 'you',
    rolesLegend: (email) => `Roles of ${email}`,
    saveRoles: 'Save roles',
    saveRolesLabel: (email) => `Save the roles of ${email}`,
    remove: 'Remove',
    removeLabel: (email) => `Remove ${email} from the organization`,
    invitationsHeading: 'Pending invitations',
    noInvitations: 'No invitations are pending.',
    invitationColumns: { email: 'Email', roles: 'Roles', expires: 'Expires', actions: 'Actions' },
    revoke: 'Revoke',
    revokeLabel: (email) => `Revoke the invitation of ${email}`,
    inviteHeading: 'Invite someone',
    inviteEmail: 'Email',
    inviteRoles: 'Roles',
    inviteSubmit: 'Send invitation',
    leaveHeading: 'Leave',
    leaveHint: 'You lose access to this organization until someone invites you again.',
    leave: 'Leave the organization',
    back: 'All your organizations',
    rolesChanged: 'The roles were saved.',
    removed: 'The member was removed.',
    invited: 'The invitation was mailed.',
    revoked: 'The invitation was revoked: its link no longer works.',
    joined: 'You joined the organization.',
  },
  invitation: {
    title: 'Invitation',
    question: (org, roles) => `You are invited to join ${org} as ${roles}.`,
    accept: 'Accept the invitation',
    signIn:
      'Log in with the address this invitation was mailed to, or create an account with it and ' +
      'confirm it, then open this link again.',
    logIn: 'Log in',
    register: 'Create an account',
    otherAccount: (email) =>
      `You are logged in as ${email}, but this invitation was mailed to another address. Log out, ` +
      `then log in (or create an account) with the invited address and open this link again.`,
    unconfirmed: 'Your email address is not confirmed yet. Confirm it first, then open this link again.',
    logOut: 'Log out',
    member: 'You are a member of this organization already.',
    openOrg: 'Open the organization',
    unusable: 'This invitation link is unknown, expired, revoked or already used. Ask for a new invitation.',
  },
  orgErrors: {
    name: 'Give the organization a name of 1 to 100 characters.',
    slug: 'A slug is 2 to 48 of a-z 0-9 -.',
    slugTaken: 'Another organization has this slug. Choose another, or leave it empty.',
    tooMany: 'You own as many organizations as one account may. Delete one, or make someone else its owner, first.',
    roles: 'Tick at least one role.',
    unknownRole: 'One of these roles does not exist.',
    lastOwner: 'The organization must keep at least one owner: make someone else an owner first.',
    alreadyMember: 'Someone with this address is a member already.',
    notAllowed: 'Your roles here do not allow this.',
  },
};
