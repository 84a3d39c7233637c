import { packRules } from '@casl/ability/extra';
import { Router, type RequestHandler } from 'express';
import type { AbilityFactory, OrgPlace } from '../../authorization/abilities.js';
import type { OrgAccess } from '../../authorization/org-access.js';
import { userOfRequest } from '../../authorization/request-state.js';
import { AuthError, ValidationError } from '../../errors.js';

export interface AbilitiesApiDeps {
  /** Loads the user's attribute values where the global roles name any. */
  abilityReady: RequestHandler;
  abilities: AbilityFactory;
  orgs: Pick<OrgAccess, 'placeOf' | 'attributedIn'>;
}

/**
 * `GET /api/abilities`: the serialisable CASL rules the request decides with, for front ends to
 * build the same ability (`createMongoAbility(rules)`) and hide what the server would refuse.
 * Policy functions stay on the server. `?packed=true` answers in CASL's compact `packRules` form.
 *
 * - Outside organizations: the user's global roles' rules; `?org=<id or slug>`: the rules in that
 *   organization, as after `orgRequired` (not a member, nor allowed to read it: 404 `not_found`).
 * - A token bound to an organization: the rules there, `?org` or not (another is 403 `forbidden`).
 * - A token with scopes: those rules intersected with its scopes' (rule-intersection.ts).
 */
export function abilitiesApi({ abilityReady, abilities, orgs }: AbilitiesApiDeps): Router {
  const router = Router();
  router.get('/', abilityReady, async (req, res) => {
    let user = userOfRequest(req)!;
    const token = req.authMethod === 'token' ? req.token : undefined;
    const named = req.query['org'];
    if (named !== undefined && (typeof named !== 'string' || named === '')) throw new ValidationError([{ field: 'org', message: 'must be one organization’s id or slug' }]);
    const org = named ?? token?.org ?? undefined;
    let place: OrgPlace | undefined;
    if (org !== undefined) {
      const found = await orgs.placeOf(user, org);
      if (!found) throw new AuthError('not_found', 'No such organization');
      if (token?.org != null && token.org !== found.org.id) throw new AuthError('forbidden', 'This token is bound to another organization');
      place = { org: found.org, roles: found.membership?.roles ?? [] };
      // With the attribute values the organization's roles (or the token's scopes) name, loaded if need be.
      user = await orgs.attributedIn(user, place, token?.scopes);
    }
    const rules = abilities.serializableRules(user, place, token?.scopes);
    res.json({ rules: req.query['packed'] === 'true' ? packRules(rules) : rules });
  });
  return router;
}
