/**
 * `GET /openapi.json`: the OpenAPI 3.1 description of this router (http/openapi.ts), built at the
 * first request (a ServiceAuth that is never asked pays nothing at start, not even loading the
 * modules that build it) and then sent as the same bytes every time; `no-cache` lets a client keep
 * it and revalidate (ETag).
 */
import { Router } from 'express';

/** Where the document is served, under the prefix. */
export const OPENAPI_PATH = '/openapi.json';

export function openApiApi(build: () => Promise<object>): Router {
  const router = Router();
  let body: string | undefined;
  router.get(OPENAPI_PATH, async (_req, res) => {
    body ??= JSON.stringify(await build());
    res.setHeader('Cache-Control', 'no-cache');
    res.type('application/json').send(body);
  });
  return router;
}
