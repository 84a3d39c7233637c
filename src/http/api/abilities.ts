import { packRules } from '@casl/ability/extra';
import { Router, type RequestHandler } from 'express';
import type { AbilityFactory } from '../../authorization/abilities.js';
import { userOfRequest } from '../../authorization/request-state.js';

/**
 * `GET /api/abilities`: the signed-in user's serialisable CASL rules, for front ends to build the
 * same ability (`createMongoAbility(rules)`) and hide what the server would refuse. Policy
 * functions stay on the server. `?packed=true` answers in CASL's compact `packRules` form.
 */
export function abilitiesApi(abilityReady: RequestHandler, abilities: AbilityFactory): Router {
  const router = Router();
  // `abilityReady`: rules that name the application's user attributes are filled in with the user's values.
  router.get('/', abilityReady, (req, res) => {
    const rules = abilities.serializableRules(userOfRequest(req)!);
    res.json({ rules: req.query['packed'] === 'true' ? packRules(rules) : rules });
  });
  return router;
}
