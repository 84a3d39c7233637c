/**
 * The second step of wiring.ts: the accounts and what changes them (users and their roles, account
 * states and deletion, password resets, registrations, email changes) and the organizations users
 * belong to. They are wired together because they share the user cache, the mail links and the
 * work done after an answer, and because deleting a user leaves their organizations.
 */
import type { AuthParts } from '../wiring.js';
import { OrgService } from '../orgs/service.js';
import { AccountStates } from '../users/account-states.js';
import { BackgroundWork } from '../users/background-work.js';
import { UserCreation } from '../users/creation.js';
import { AccountDeletion } from '../users/deletion.js';
import { EmailChanges } from '../users/email-changes.js';
import { AccountLinks } from '../users/links.js';
import { PasswordResets } from '../users/password-resets.js';
import { Registrations } from '../users/registrations.js';
import { RoleService } from '../users/roles.js';
import { UserService } from '../users/service.js';
import type { UserCache } from '../users/user-cache.js';

/** The parts this step makes, and user creation, which signing in through a provider needs too. */
export type Accounts = Pick<
  AuthParts,
  'users' | 'roles' | 'background' | 'resets' | 'registrations' | 'emailChanges' | 'orgs'
> & { creation: UserCreation };

/** Needs of `parts` what the credential stores step made, and the user cache it made. */
export function wireAccounts(parts: AuthParts, cache: UserCache): Accounts {
  const { config, storage, audit, pluggable, lookup, sessions, tokens, resetTokens, emailTokens, passwords, events } =
    parts;
  const revokeTokens = config.tokens.revokeOnPasswordReset;
  const creation = new UserCreation(storage, passwords, audit);
  const users = new UserService({
    storage,
    audit,
    hasher: parts.hasher,
    lookup,
    passwords,
    creation,
    cache,
    states: new AccountStates({ storage, audit, lookup, cache, sessions, events }),
    deletion: new AccountDeletion({
      storage,
      audit,
      lookup,
      cache,
      sessions,
      tokens,
      resetTokens,
      emailTokens,
      events,
      leaveOrgs: (tx, user) => parts.orgs.leaveAll(tx, user),
    }),
    events,
    revokeTokensOnReset: revokeTokens,
  });
  const roles = new RoleService(storage, users, parts.roleRules);
  const background = new BackgroundWork(pluggable);
  const links = new AccountLinks(config.publicUrl, config.urlPrefix);
  const mailing = { links, mail: pluggable, log: pluggable };
  const resetSettings = { ttlSeconds: config.resetTokenTtlSeconds, revokeTokens };
  const resets = new PasswordResets({
    ...mailing,
    settings: resetSettings,
    background,
    storage,
    audit,
    users,
    lookup,
    tokens: resetTokens,
    passwords,
    events,
  });
  const confirmTtl = config.emailConfirmation.tokenTtlSeconds;
  const registrations = new Registrations({
    ...mailing,
    storage,
    audit,
    creation,
    passwords,
    lookup,
    cache,
    emailTokens,
    events,
    ttlSeconds: confirmTtl,
    background,
  });
  const emailChanges = new EmailChanges({
    ...mailing,
    storage,
    audit,
    creation,
    lookup,
    cache,
    emailTokens,
    resetTokens,
    events,
    ttlSeconds: confirmTtl,
  });
  const knownOrgRole = (name: string) => parts.knownOrgRole(name);
  const orgs = new OrgService({
    ...mailing,
    storage,
    audit,
    events,
    lookup,
    settings: config.orgs,
    knownOrgRole,
    evictTokensOf: (userId) => parts.verifier.evictUser(userId),
  });
  return { creation, users, roles, background, resets, registrations, emailChanges, orgs };
}
