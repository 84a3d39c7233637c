/**
 * The admin console, `/admin` under the prefix (docs/admin.md): pages for the people whose CASL
 * rules open them (access.ts), built on the services the CLI and the JSON API use, never a second
 * implementation. Every page needs a session and the part's permission; every change is a form
 * post, checked by the guards (same-site included), recorded in the audit log with the operator
 * as `detail.by`, answered with a redirect.
 */
import { Router, type Request, type RequestHandler, type Response } from 'express';
import type { AuditApi } from '../../../audit/audit-log.js';
import type { AbilityFactory } from '../../../authorization/abilities.js';
import type { Explanation } from '../../../authorization/explain.js';
import type { RequireOptions } from '../../../authorization/guards.js';
import type { AuthConfig } from '../../../config/config.js';
import type { SecondFactors } from '../../../mfa/second-factor.js';
import type { OrgService } from '../../../orgs/service.js';
import type { SessionStore } from '../../../sessions/store.js';
import type { TokenService } from '../../../tokens/service.js';
import type { AuthUser } from '../../../users/auth-user.js';
import type { RoleService } from '../../../users/roles.js';
import type { UserService } from '../../../users/service.js';
import type { PageTexts } from '../texts.js';
import type { GuardKit } from '../../endpoints/guard-kit.js';
import { EndpointRouter } from '../../endpoints/mount.js';
import { openSections, type GuardMaker } from './access.js';
import { consolePage } from './admin-endpoints.js';
import { auditRoutes } from './audit-routes.js';
import { homePage } from './home-page.js';
import { orgRoutes } from './org-routes.js';
import { policyRoutes } from './policy-routes.js';
import { sendAdminPage, type AdminPageBase } from './shell.js';
import { userRoutes } from './user-routes.js';

/** `auth.explain` for a user, in an organization if given (its id or slug). */
export type Explainer = (
  user: AuthUser,
  action: string,
  subjectType: string,
  context: Record<string, unknown>,
  org?: string,
) => Explanation | Promise<Explanation>;

export interface AdminDeps {
  config: AuthConfig;
  pluggable: { readonly texts: PageTexts };
  guards: GuardMaker & { require<T>(options: RequireOptions<T>): RequestHandler };
  users: UserService;
  sessions: Pick<SessionStore, 'list' | 'endAllBut'>;
  tokens: Pick<TokenService, 'list' | 'revoke'>;
  secondFactors: Pick<SecondFactors, 'reset'>;
  orgs: Pick<OrgService, 'list' | 'get' | 'members'>;
  audit: Pick<AuditApi, 'query' | 'verify'>;
  /** The global roles defined, and those stored (`auth.roles`): the roles a user may be given here. */
  roleRules: { names(): string[] };
  roles: Pick<RoleService, 'standing' | 'list'>;
  /** Every role's rules and the names they use, for the matrix. */
  abilities: Pick<AbilityFactory, 'definitions' | 'knownNames'>;
  explain: Explainer;
  /** Acting as a user (docs/impersonation.md): the console's button starts it as the JSON API does, every check included. */
  impersonation: { start(req: Request, res: Response, targetUserId: number): Promise<unknown> };
}

export const adminHome = consolePage({
  path: '/admin',
  operationId: 'adminHome',
  summary: 'The admin console: links to the parts the caller’s rules open',
  needs: 'one of `read User`, `read Organization`, `read AuditRecord`, `read Policy`',
});

export function adminPages(deps: AdminDeps, kit: GuardKit): Router {
  const router = Router();
  const base = (req: Request): AdminPageBase => {
    const sections = openSections(req.ability!);
    return { prefix: deps.config.urlPrefix, texts: deps.pluggable.texts, sections, notice: null };
  };

  router.use(new EndpointRouter(kit).on(adminHome, (req, res) => sendAdminPage(res, 200, homePage(base(req)))).router);
  router.use(userRoutes(deps, kit, base).router);
  router.use(orgRoutes(deps, kit, base).router);
  router.use(auditRoutes(deps, kit, base).router);
  router.use(policyRoutes(deps, kit, base).router);
  return router;
}
