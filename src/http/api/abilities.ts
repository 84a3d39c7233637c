import { packRules } from '@casl/ability/extra';
import type { AbilityFactory, OrgPlace } from '../../authorization/abilities.js';
import type { OrgAccess } from '../../authorization/org-access.js';
import { userOfRequest } from '../../authorization/request-state.js';
import { AuthError, ValidationError } from '../../errors.js';
import { endpoint } from '../endpoints/endpoint.js';
import type { GuardKit } from '../endpoints/guard-kit.js';
import { ABILITY, tokenFailuresNote } from '../endpoints/guards.js';
import { EndpointRouter } from '../endpoints/mount.js';
import { noStore, queryParameter, toLoginPage } from '../openapi/operations.js';
import { json } from '../openapi/responses.js';
import { rulesResponse } from '../schemas/responses.js';

export const abilitiesEndpoint = endpoint({
  method: 'get',
  path: '/api/abilities',
  operationId: 'abilities',
  summary: 'The user’s authorization rules',
  description: ({ config }) =>
    [
      'The serialisable CASL rules the request decides with, placeholders filled in, for a front end to build the',
      'same ability; policies stay on the server. Outside organizations, the user’s global roles’ rules; with',
      '`org`, the rules in that organization (global roles, then the membership’s organization roles, bound to it;',
      '404 `not_found` for one the user is not a member of). A token bound to an organization gets the rules there',
      '(another `org`: 403 `forbidden`); a token with scopes, those rules intersected with its scopes’ rules.',
    ].join(' ') + tokenFailuresNote(config),
  tags: ['authorization'],
  // Loads the user's attribute values where the global roles name any.
  guards: [ABILITY],
  parameters: [
    queryParameter('packed', '`true`: in CASL’s `packRules` form (any other value: as they are)'),
    queryParameter('org', 'An organization’s id or slug: the rules in it, as after `orgRequired`'),
  ],
  responses: ({ config, schemas }) => ({
    200: json(schemas, 'The rules', rulesResponse, noStore()),
    303: toLoginPage(config),
  }),
  refusals: ['bad_request', 'forbidden', 'not_found'],
});

export interface AbilitiesApiDeps {
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
export function abilitiesApi({ abilities, orgs }: AbilitiesApiDeps, kit: GuardKit): EndpointRouter {
  return new EndpointRouter(kit).on(abilitiesEndpoint, async (req, res) => {
    let user = userOfRequest(req)!;
    const token = req.authMethod === 'token' ? req.token : undefined;
    const named = req.query['org'];
    if (named !== undefined && (typeof named !== 'string' || named === '')) {
      throw new ValidationError([{ field: 'org', message: 'must be one organization’s id or slug' }]);
    }
    const org = named ?? token?.org ?? undefined;
    let place: OrgPlace | undefined;
    if (org !== undefined) {
      const found = await orgs.placeOf(user, org);
      if (!found) throw new AuthError('not_found', 'No such organization');
      if (token?.org != null && token.org !== found.org.id) {
        throw new AuthError('forbidden', 'This token is bound to another organization');
      }
      place = { org: found.org, roles: found.membership?.roles ?? [] };
      // With the attribute values the organization's roles (or the token's scopes) name, loaded if need be.
      user = await orgs.attributedIn(user, place, token?.scopes);
    }
    const rules = abilities.serializableRules(user, place, token?.scopes);
    res.json({ rules: req.query['packed'] === 'true' ? packRules(rules) : rules });
  });
}
