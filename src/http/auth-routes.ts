/**
 * The router mounted at SERVICE_AUTH_URL_PREFIX: body parsing, waiting for storage, the
 * endpoints, and problem details for every error.
 */
import express, { Router } from 'express';
import { AuthError, problemHandler } from '../errors.js';
import type { Logger } from '../logger.js';
import type { ServiceAuth } from '../service-auth.js';

export function createAuthRouter(auth: ServiceAuth, logger: Logger): Router {
  const router = Router();
  router.use(async (_req, _res, next) => {
    await auth.whenReady();
    next();
  });
  router.use(express.json({ limit: '16kb' }), express.urlencoded({ extended: false, limit: '16kb' }));

  router.get('/me', () => {
    throw new AuthError('unauthenticated', 'Log in to see this');
  });

  router.use(problemHandler(logger));
  return router;
}
