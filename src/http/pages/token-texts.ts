/**
 * The words of the API tokens page and its revoke confirmation. Part of `PageTexts` (texts.ts).
 */

export interface TokenTexts {
  tokens: {
    title: string;
    signedInAs(email: string): string;
    none: string;
    columns: {
      name: string;
      scopes: string;
      org: string;
      created: string;
      lastUsed: string;
      expires: string;
      actions: string;
    };
    allScopes: string;
    /** An unbound token's organization: it acts in every one of its user's. */
    allOrgs: string;
    never: string;
    legacy: string;
    revoke: string;
    revokeLabel(name: string): string;
    createHeading: string;
    name: string;
    expiresInDays(max: number): string;
    scopes: string;
    scopesHint: string;
    /** Over the checkboxes of the defined scopes. */
    scopesChoiceHint: string;
    org: string;
    orgHint: string;
    /** The choice of no organization: the token acts in every one. */
    noOrg: string;
    submit: string;
    createdHeading(name: string): string;
    createdWarning: string;
    tokenLabel: string;
    copy: string;
    copied: string;
    copyFailed: string;
    revoked: string;
  };
  revoke: { title: string; question(name: string): string; consequence: string; confirm: string; cancel: string };
}

export const defaultTokenTexts: TokenTexts = {
  tokens: {
    title: 'API tokens',
    signedInAs: (email) => `Tokens of ${email}`,
    none: 'You have no API tokens yet.',
    columns: {
      name: 'Name',
      scopes: 'Scopes',
      org: 'Organization',
      created: 'Created',
      lastUsed: 'Last used',
      expires: 'Expires',
      actions: 'Actions',
    },
    allScopes: 'all',
    allOrgs: 'all',
    never: 'never',
    legacy: 'legacy: please replace it',
    revoke: 'Revoke…',
    revokeLabel: (name) => `Revoke the token ${name}…`,
    createHeading: 'Create a token',
    name: 'Name',
    expiresInDays: (max) => `Expires in (days, 1 to ${max})`,
    scopes: 'Scopes (optional)',
    scopesHint: 'Separated by spaces; leave empty for all. Each is 1 to 64 of a-z 0-9 : . _ -',
    scopesChoiceHint:
      'What the token may do, at most: within your own rights, only what the checked scopes allow. Check none for everything you may do.',
    org: 'Organization (optional)',
    orgHint: 'A token bound to an organization acts in that one only.',
    noOrg: 'None: every organization',
    submit: 'Create token',
    createdHeading: (name) => `Your new token “${name}”`,
    createdWarning: 'Copy it now and keep it somewhere safe: it will not be shown again.',
    tokenLabel: 'Token',
    copy: 'Copy',
    copied: 'Copied to the clipboard.',
    copyFailed: 'Could not copy: select the token and copy it by hand.',
    revoked: 'The token was revoked. Programs using it are refused from now on.',
  },
  revoke: {
    title: 'Revoke a token',
    question: (name) => `Revoke the token “${name}”?`,
    consequence: 'Programs that use it will be refused at once. This cannot be undone.',
    confirm: 'Revoke the token',
    cancel: 'Cancel',
  },
};
