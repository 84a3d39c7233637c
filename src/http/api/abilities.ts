import { packRules } from '@casl/ability/extra';
import { Router, type RequestHandler } from 'express';
import type { AbilityFactory } from '../../authorization/abilities.js';

/**
 * `GET /api/abilities`: the signed-in user's serialisable CASL rules, for front ends to build the
 * same ability (`createMongoAbility(rules)`) and hide what the server would refuse. Policy
 * functions stay on the server. `?packed=true` answers in CASL's compact `packRules` form.
 */
export function abilitiesApi(loginRequired: RequestHandler, abilities: AbilityFactory): Router {
  const router = Router();
  router.get('/', loginRequired, (req, res) => {
    const rules = abilities.serializableRules(req.user!);
    res.json({ rules: req.query['packed'] === 'true' ? packRules(rules) : rules });
  });
  return router;
}
