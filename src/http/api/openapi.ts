/**
 * `GET /openapi.json`: the OpenAPI 3.1 description of this router (http/openapi.ts), built at the
 * first request (a ServiceAuth that is never asked pays nothing at start) and then sent as the
 * same bytes every time; `no-cache` lets a client keep it and revalidate (ETag).
 */
import { Router } from 'express';

export function openApiApi(path: string, build: () => object): Router {
  const router = Router();
  let body: string | undefined;
  router.get(path, (_req, res) => {
    body ??= JSON.stringify(build());
    res.setHeader('Cache-Control', 'no-cache');
    res.type('application/json').send(body);
  });
  return router;
}
