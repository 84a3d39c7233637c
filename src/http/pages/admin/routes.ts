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
import { auditedAsOperator, consoleGate, openSections, type GuardMaker, type Section } from './access.js';
import { auditRoutes } from './audit-routes.js';
import { homePage } from './home-page.js';
import { orgRoutes } from './org-routes.js';
import { policyRoutes } from './policy-routes.js';
import { sendAdminPage, type AdminPageBase } from './shell.js';
import { userRoutes } from './user-routes.js';

/** `auth.explain` for a user, in an organization if given (its id or slug). */
export type Explainer = (user: AuthUser, action: string, subjectType: string, context: Record<string, unknown>, org?: string) => Explanation | Promise<Explanation>;

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

export function adminPages(deps: AdminDeps): Router {
  const router = Router();
  const base = (req: Request): AdminPageBase => ({ prefix: deps.config.urlPrefix, texts: deps.pluggable.texts, sections: openSections(req.ability!), notice: null });
  const gate = (section: Section): RequestHandler[] => [consoleGate(deps.guards, section), auditedAsOperator];

  router.get('/admin', consoleGate(deps.guards), (req, res) => sendAdminPage(res, 200, homePage(base(req))));
  router.use(userRoutes(deps, gate('users'), base));
  router.use(orgRoutes(deps, gate('orgs'), base));
  router.use(auditRoutes(deps, gate('audit'), base));
  router.use(policyRoutes(deps, gate('policy'), base));
  return router;
}
