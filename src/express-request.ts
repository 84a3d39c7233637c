/**
 * What the guards add to Express's Request, by declaration merging (as @types/passport does, and
 * compatible with it: both declare `user?: Express.User`). A .ts module rather than a hand-written
 * .d.ts, so that tsc checks it and emits it with the package's types.
 */
import type { EntityManager } from '@mikro-orm/core';
import type { AppAbility } from './authorization/ability-types.js';
import type { OrgInfo, OrgMembership } from './authorization/org-directory.js';
import type { AuthMethod } from './authentication/credentials.js';
import type { AuthUser } from './users/auth-user.js';

/** The token a request authenticated with. */
export interface RequestToken {
  /** The `<id>` part of the token. */
  id: string;
  /** The scopes it carries; an empty list means all scopes. */
  scopes: readonly string[];
  /** The id of the organization it is bound to, or null: see docs/tokens.md. */
  org: number | null;
}

declare global {
  namespace Express {
    interface User extends AuthUser {}

    interface Request {
      /** The authenticated user, set by the service-auth guards. */
      user?: User;
      /** The user's CASL ability (role rules and policies), set by the guards; after `orgRequired`, the ability in that organization. */
      ability?: AppAbility;
      /** The organization of the request, set by `auth.orgRequired()`. */
      org?: OrgInfo;
      /** The user's membership in `req.org` (its organization roles), or null for a non-member let in by a global rule. */
      membership?: OrgMembership | null;
      /** How the request authenticated. */
      authMethod?: AuthMethod;
      /** The user really acting while `req.user` is being impersonated (docs/impersonation.md); otherwise undefined. */
      impersonator?: User;
      /** The API token, when the request authenticated with one. */
      token?: RequestToken;
      /**
       * Behind any guard, once `auth.enforce(orm)` registered the application's MikroORM: a fork of its
       * EntityManager that reads only the rows `req.ability` may read and checks every flush (docs/authorization.md).
       */
      em: EntityManager;
      /** What `auth.require({ …, load })` loaded and allowed: cast it to your entity's type. */
      resource?: unknown;
    }
  }
}

export {};
